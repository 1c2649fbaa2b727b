import CLibXML

/// A streamable XPath subset ("//event", "/feed/item", "events/event", with namespace prefixes) matched
/// against the node the streaming reader is on. The one owner of its `xmlPatternPtr`, freed in deinit.
package final class XMLStreamPattern {
    package let text: String
    private let pattern: xmlPatternPtr

    package init(_ text: String, namespaces: [(prefix: String, uri: String)] = []) throws {
        self.text = text
        // libxml2 wants namespaces as a NULL-terminated list of (uri, prefix) pairs.
        var owned: [UnsafeMutablePointer<xmlChar>] = []
        defer { owned.forEach { calpipe_xml_free($0) } }
        var list: [UnsafePointer<xmlChar>?] = []
        for (prefix, uri) in namespaces {
            guard let u = xmlStrdup(uri), let p = xmlStrdup(prefix) else { throw XMLError(message: "out of memory", line: 0, column: 0) }
            owned += [u, p]
            list.append(UnsafePointer(u))
            list.append(UnsafePointer(p))
        }
        list += [nil, nil]
        let collector = XMLErrorCollector()
        let compiled = collector.capturing {
            list.withUnsafeMutableBufferPointer { xmlPatterncompile(text, nil, 0, $0.baseAddress) }
        }
        guard let compiled else {
            throw XMLError(message: "\"\(text)\" is not a path calpipe can match while streaming (use forms like \"//event\", \"/feed/event\" or \"events/event\")",
                           line: 0, column: 0)
        }
        pattern = compiled
    }

    deinit {
        xmlFreePattern(pattern)
    }

    func matches(_ node: xmlNodePtr) -> Bool {
        xmlPatternMatch(pattern, node) == 1
    }
}

extension XMLStreamReader {
    /// True when the current node is an element the pattern selects.
    package func matches(_ pattern: XMLStreamPattern) -> Bool {
        guard kind == .element, let node = currentNode else { return false }
        return pattern.matches(node)
    }
}
