import CLibXML

/// One element and its subtree, copied out of libxml2 into values (small: one calendar component, one item).
package struct XMLElementTree: Hashable, Sendable {
    package struct Attribute: Hashable, Sendable {
        package var localName: String
        package var namespaceURI: String?
        package var value: String
    }

    package var localName: String
    package var namespaceURI: String?
    package var attributes: [Attribute]
    package var children: [XMLElementTree]
    /// The element's own text (its text children joined, without the text of child elements).
    package var text: String
    /// 1-based line of the start tag.
    package var line: Int

    package init(localName: String, namespaceURI: String? = nil, attributes: [Attribute] = [], children: [XMLElementTree] = [], text: String = "", line: Int = 0) {
        self.localName = localName
        self.namespaceURI = namespaceURI
        self.attributes = attributes
        self.children = children
        self.text = text
        self.line = line
    }

    /// The first child element with this local name (and namespace, when given).
    package func child(_ name: String, namespace: String? = nil) -> XMLElementTree? {
        children.first { $0.localName == name && (namespace == nil || $0.namespaceURI == namespace) }
    }

    package func children(_ name: String, namespace: String? = nil) -> [XMLElementTree] {
        children.filter { $0.localName == name && (namespace == nil || $0.namespaceURI == namespace) }
    }

    package func attribute(_ name: String, namespace: String? = nil) -> String? {
        attributes.first { $0.localName == name && $0.namespaceURI == namespace }?.value
    }

    /// An attribute's value. Entity references in it are refused, never expanded (libxml2 keeps them as
    /// child nodes when entities are not substituted, and would expand them when asked for the value).
    static func attributeValue(_ a: UnsafeMutablePointer<xmlAttr>, label: String) throws -> String {
        var value = ""
        var child = a.pointee.children
        while let c = child {
            if c.pointee.type == XML_ENTITY_REF_NODE {
                let name = XMLStreamReader.string(c.pointee.name) ?? ""
                let attributeName = XMLStreamReader.string(a.pointee.name) ?? ""
                throw XMLError(message: "the entity reference &\(name); in attribute \(attributeName) is not allowed: calpipe never expands entities",
                               line: a.pointee.parent.map { Int(xmlGetLineNo($0)) } ?? 0, column: 0, file: label)
            }
            if let content = c.pointee.content { value += String(cString: content) }
            child = c.pointee.next
        }
        return value
    }

    /// Copies a libxml2 element. Entity references are refused, never expanded.
    init(node: UnsafeMutablePointer<xmlNode>, label: String) throws {
        let n = node.pointee
        localName = XMLStreamReader.string(n.name) ?? ""
        namespaceURI = n.ns.flatMap { XMLStreamReader.string($0.pointee.href) }
        line = Int(xmlGetLineNo(node))
        attributes = []
        var attribute = n.properties
        while let a = attribute {
            let value = try XMLElementTree.attributeValue(a, label: label)
            attributes.append(Attribute(localName: XMLStreamReader.string(a.pointee.name) ?? "",
                                        namespaceURI: a.pointee.ns.flatMap { XMLStreamReader.string($0.pointee.href) }, value: value))
            attribute = a.pointee.next
        }
        children = []
        text = ""
        var child = n.children
        while let c = child {
            switch c.pointee.type {
            case XML_ELEMENT_NODE:
                children.append(try XMLElementTree(node: c, label: label))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = c.pointee.content { text += String(cString: content) }
            case XML_ENTITY_REF_NODE:
                let name = XMLStreamReader.string(c.pointee.name) ?? ""
                throw XMLError(message: "the entity reference &\(name); is not allowed: calpipe never expands entities",
                               line: Int(xmlGetLineNo(c)), column: 0, file: label)
            default:
                break
            }
            child = c.pointee.next
        }
    }
}
