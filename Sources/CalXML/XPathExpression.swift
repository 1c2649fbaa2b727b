import CLibXML

/// A compiled XPath 1.0 expression. The one owner of its `xmlXPathCompExprPtr`, freed in deinit.
package final class XPathExpression {
    package let text: String
    let compiled: xmlXPathCompExprPtr
    /// Evaluation steps allowed per evaluation, so a pathological expression ends with an error.
    static let operationLimit: UInt = 10_000_000

    package init(_ text: String) throws {
        self.text = text
        let collector = XMLErrorCollector()
        let compiled = collector.capturing { xmlXPathCompile(text) }
        guard let compiled else {
            let detail = collector.first?.message ?? "not a valid XPath expression"
            throw XMLError(message: "XPath \"\(text)\": \(detail)", line: 0, column: 0)
        }
        self.compiled = compiled
    }

    deinit {
        xmlXPathFreeCompExpr(compiled)
    }
}
