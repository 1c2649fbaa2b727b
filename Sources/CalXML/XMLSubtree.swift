import CLibXML

/// A standalone copy of one element's subtree in its own libxml2 document, so XPath evaluated on it can
/// see nothing else of the feed ("/" is the copied element's document, "." the element). The one owner of
/// its `xmlDocPtr`, freed in deinit.
package final class XMLSubtree {
    private let document: xmlDocPtr
    private let root: xmlNodePtr
    package let label: String
    /// The line of the copied element in the original input.
    package let line: Int

    init(copying node: xmlNodePtr, label: String) throws {
        self.label = label
        line = Int(xmlGetLineNo(node))
        try XMLSubtree.refuseEntityReferences(in: node, label: label)
        guard let document = xmlNewDoc("1.0") else { throw XMLError(message: "out of memory copying an element", line: line, column: 0, file: label) }
        guard let copy = xmlDocCopyNode(node, document, 1) else {
            xmlFreeDoc(document)
            throw XMLError(message: "out of memory copying an element", line: line, column: 0, file: label)
        }
        xmlDocSetRootElement(document, copy)
        self.document = document
        root = copy
    }

    /// Parses a small XML document held in memory, with the same hardening as the streaming reader.
    package static func parse(_ text: String, label: String) throws -> XMLSubtree {
        let reader = try XMLStreamReader(input: XMLBytesInput(text), label: label)
        guard try reader.nextElement() else { throw XMLError(message: "the document has no element", line: 1, column: 0, file: label) }
        let subtree = try reader.copySubtree()
        while try reader.skipSubtree() {}
        return subtree
    }

    deinit {
        xmlFreeDoc(document)
    }

    private static func refuseEntityReferences(in node: xmlNodePtr, label: String) throws {
        var attribute = node.pointee.properties
        while let a = attribute {
            _ = try XMLElementTree.attributeValue(a, label: label)
            attribute = a.pointee.next
        }
        var child = node.pointee.children
        while let c = child {
            if c.pointee.type == XML_ENTITY_REF_NODE {
                let name = XMLStreamReader.string(c.pointee.name) ?? ""
                throw XMLError(message: "the entity reference &\(name); is not allowed: calpipe never expands entities",
                               line: Int(xmlGetLineNo(c)), column: 0, file: label)
            }
            if c.pointee.type == XML_ELEMENT_NODE { try refuseEntityReferences(in: c, label: label) }
            child = c.pointee.next
        }
    }

    /// Evaluates an XPath expression with the copied element as the context node.
    package func evaluate(_ expression: XPathExpression, namespaces: [(prefix: String, uri: String)] = []) throws -> XPathResult {
        let collector = XMLErrorCollector()
        guard let context = xmlXPathNewContext(document) else {
            throw XMLError(message: "out of memory starting XPath", line: line, column: 0, file: label)
        }
        defer { xmlXPathFreeContext(context) }
        context.pointee.node = root
        context.pointee.error = XMLErrorCollector.handler
        context.pointee.userData = Unmanaged.passUnretained(collector).toOpaque()
        context.pointee.opLimit = XPathExpression.operationLimit
        for (prefix, uri) in namespaces {
            guard xmlXPathRegisterNs(context, prefix, uri) == 0 else {
                throw XMLError(message: "cannot register the namespace prefix \"\(prefix)\"", line: line, column: 0, file: label)
            }
        }
        let result = collector.capturing { xmlXPathCompiledEval(expression.compiled, context) }
        defer { if let result { xmlXPathFreeObject(result) } }
        if let error = collector.first {
            throw XMLError(message: "XPath \"\(expression.text)\": \(error.message)", line: line, column: 0, file: label)
        }
        guard let result else {
            throw XMLError(message: "XPath \"\(expression.text)\" could not be evaluated", line: line, column: 0, file: label)
        }
        let object = result.pointee
        switch object.type {
        case XPATH_NODESET:
            guard let set = object.nodesetval, set.pointee.nodeNr > 0, let nodes = set.pointee.nodeTab else { return .nodes([]) }
            var values: [String] = []
            for i in 0..<Int(set.pointee.nodeNr) {
                guard let node = nodes[i], let raw = xmlXPathCastNodeToString(node) else { continue }
                values.append(String(cString: raw))
                calpipe_xml_free(raw)
            }
            return .nodes(values)
        case XPATH_STRING:
            return .string(XMLStreamReader.string(object.stringval) ?? "")
        case XPATH_BOOLEAN:
            return .boolean(object.boolval != 0)
        case XPATH_NUMBER:
            return .number(object.floatval)
        default:
            throw XMLError(message: "XPath \"\(expression.text)\" gave a result that is not text", line: line, column: 0, file: label)
        }
    }
}

/// What an XPath expression evaluates to.
package enum XPathResult: Equatable, Sendable {
    /// The string value of each selected node, in document order.
    case nodes([String])
    case string(String)
    case number(Double)
    case boolean(Bool)
}
