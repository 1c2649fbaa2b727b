import CLibXML

/// A forward-only, namespace-aware XML reader over libxml2's `xmlTextReader`: it never builds the whole
/// document, only the node it is on (and, on request, one element's subtree). The one owner of its
/// `xmlTextReaderPtr`, freed in deinit. Not thread-safe; use one reader per thread.
///
/// Hardened by default: libxml2 reads bytes only through the given `XMLInput` (it opens no file and no
/// URL), `XML_PARSE_NONET` is set, external DTDs and entities are never loaded, entities are never
/// substituted (a document that uses one is rejected), libxml2's size and depth limits stay on (no
/// `XML_PARSE_HUGE`), and every libxml2 error is turned into an `XMLError` instead of being printed.
package final class XMLStreamReader {
    /// The input's name for messages.
    package let label: String
    private let reader: OpaquePointer
    private let collector = XMLErrorCollector()
    private let source: InputBox
    private var finished = false
    /// Names of the elements opened and not yet closed, outermost first.
    private var openElements: [String] = []

    /// Parser options: no network, CDATA as text, line numbers above 65535 kept. Deliberately absent:
    /// XML_PARSE_NOENT, XML_PARSE_DTDLOAD, XML_PARSE_DTDATTR, XML_PARSE_DTDVALID, XML_PARSE_XINCLUDE, XML_PARSE_HUGE.
    package static let parserOptions: Int32 = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue | XML_PARSE_BIG_LINES.rawValue)

    private final class InputBox {
        let input: XMLInput
        var error: Error?
        init(_ input: XMLInput) { self.input = input }
    }

    private static let readCallback: xmlInputReadCallback = { context, buffer, length in
        guard let context, let buffer, length >= 0 else { return -1 }
        let box = Unmanaged<InputBox>.fromOpaque(context).takeUnretainedValue()
        if box.error != nil { return -1 }
        do {
            let n = try box.input.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: Int(length)))
            return Int32(n)
        } catch {
            box.error = error
            return -1
        }
    }

    private static let closeCallback: xmlInputCloseCallback = { _ in 0 }

    /// Starts reading `input`; `label` names it in errors.
    package init(input: XMLInput, label: String) throws {
        xmlInitParser()
        self.label = label
        source = InputBox(input)
        let box = source
        let collector = self.collector
        let created: OpaquePointer? = collector.capturing {
            xmlReaderForIO(Self.readCallback, Self.closeCallback, Unmanaged.passUnretained(box).toOpaque(), nil, nil, Self.parserOptions)
        }
        guard let created else {
            if let error = box.error { throw error }
            throw (collector.first ?? XMLError(message: "cannot start the XML parser", line: 0, column: 0)).inFile(label)
        }
        reader = created
        xmlTextReaderSetStructuredErrorHandler(reader, XMLErrorCollector.handler, Unmanaged.passUnretained(collector).toOpaque())
        if let error = collector.first { throw error.inFile(label) }
    }

    deinit {
        xmlFreeTextReader(reader)
    }

    /// Runs one libxml2 call with errors captured; throws the first error it raised.
    private func call<T>(_ body: () -> T) throws -> T {
        let result = collector.capturing(body)
        try throwIfFailed()
        return result
    }

    private func throwIfFailed() throws {
        if let error = source.error {
            finished = true
            throw error
        }
        if var error = collector.first {
            finished = true
            if collector.firstCode == Int32(XML_ERR_DOCUMENT_END.rawValue), let open = openElements.last {
                // libxml2 calls a document cut off inside an element "extra content at the end".
                error = XMLError(message: "the document ends before <\(open)> is closed (truncated?)", line: 0, column: 0)
            }
            if error.line == 0 {
                error = XMLError(message: error.message, line: Int(xmlTextReaderGetParserLineNumber(reader)),
                                 column: Int(xmlTextReaderGetParserColumnNumber(reader)))
            }
            throw error.inFile(label)
        }
    }

    private func failure(_ message: String, line: Int? = nil) -> XMLError {
        finished = true
        return XMLError(message: message, line: line ?? self.line, column: 0, file: label)
    }

    // MARK: Moving

    /// Moves to the next node; false at the end of the document.
    @discardableResult
    package func read() throws -> Bool {
        guard !finished else { return false }
        let status = try call { xmlTextReaderRead(reader) }
        return try settle(status)
    }

    /// Moves past the current node's subtree to its next sibling (or the next node after it).
    @discardableResult
    package func skipSubtree() throws -> Bool {
        guard !finished else { return false }
        let closes = kind == .element && !isEmptyElement
        let status = try call { xmlTextReaderNext(reader) }
        if closes, status >= 0 { openElements.removeLast() }
        return try settle(status)
    }

    private func settle(_ status: Int32) throws -> Bool {
        if status < 0 { throw failure("the XML parser stopped (libxml2 reported no detail)") }
        if status == 0 {
            finished = true
            return false
        }
        switch kind {
        case .element: if !isEmptyElement { openElements.append(qualifiedName) }
        case .endElement: if !openElements.isEmpty { openElements.removeLast() }
        default: break
        }
        if kind == .entityReference {
            throw failure("the entity reference &\(localName); is not allowed: calpipe never expands entities")
        }
        return true
    }

    /// Moves to the next element start tag; false at the end of the document.
    package func nextElement() throws -> Bool {
        while try read() {
            if kind == .element { return true }
        }
        return false
    }

    // MARK: The current node

    package var kind: XMLNodeKind { XMLNodeKind(readerType: xmlTextReaderNodeType(reader)) }

    /// The local name ("vevent"), without a prefix.
    package var localName: String { Self.string(xmlTextReaderConstLocalName(reader)) ?? "" }

    /// The namespace URI, nil when the node has none.
    package var namespaceURI: String? { Self.string(xmlTextReaderConstNamespaceUri(reader)) }

    /// The name as written ("C:vevent").
    package var qualifiedName: String { Self.string(xmlTextReaderConstName(reader)) ?? "" }

    /// Depth in the document; the root element is 0.
    package var depth: Int { Int(xmlTextReaderDepth(reader)) }

    /// True for `<x/>`.
    package var isEmptyElement: Bool { xmlTextReaderIsEmptyElement(reader) == 1 }

    /// The text of a text node.
    package var value: String? { Self.string(xmlTextReaderConstValue(reader)) }

    /// The 1-based line the current node starts on (libxml2 keeps lines, not columns, on nodes).
    package var line: Int {
        if let node = xmlTextReaderCurrentNode(reader) {
            let l = Int(xmlGetLineNo(node))
            if l > 0 { return l }
        }
        return Int(xmlTextReaderGetParserLineNumber(reader))
    }

    /// An attribute of the current element by local name and namespace (nil: no namespace). Throws when
    /// the value uses an entity reference (never expanded).
    package func attribute(_ name: String, namespace: String? = nil) throws -> String? {
        guard kind == .element, let node = currentNode else { return nil }
        let found = namespace.map { xmlHasNsProp(node, name, $0) } ?? xmlHasNsProp(node, name, nil)
        guard let found else { return nil }
        return try XMLElementTree.attributeValue(found, label: label)
    }

    /// The current element and everything inside it, as values. The reader stays on the element;
    /// call `skipSubtree()` to move on (which lets libxml2 free the subtree).
    package func expand() throws -> XMLElementTree {
        let node = try expandedNode()
        return try XMLElementTree(node: node, label: label)
    }

    /// A standalone copy of the current element's subtree, for XPath evaluation bounded to it.
    package func copySubtree() throws -> XMLSubtree {
        let node = try expandedNode()
        return try XMLSubtree(copying: node, label: label)
    }

    private func expandedNode() throws -> UnsafeMutablePointer<xmlNode> {
        guard kind == .element else { throw failure("expected an element to expand") }
        let node = try call { xmlTextReaderExpand(reader) }
        guard let node else { throw failure("the element could not be read") }
        return node
    }

    var currentNode: xmlNodePtr? { xmlTextReaderCurrentNode(reader) }

    static func string(_ pointer: UnsafePointer<xmlChar>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: pointer)
    }
}
