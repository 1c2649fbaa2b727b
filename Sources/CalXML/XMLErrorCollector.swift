import CLibXML

/// Receives libxml2's structured errors for one reader or one XPath evaluation and keeps the first error
/// (warnings are dropped), so nothing is printed to stderr and the caller throws it as an `XMLError`.
final class XMLErrorCollector {
    private(set) var first: XMLError?
    /// libxml2's code for `first` (an `xmlParserErrors` value), 0 when the error is ours.
    private(set) var firstCode: Int32 = 0
    /// An error raised by our own input callback, which libxml2 only sees as "read failed".
    var inputError: Error?

    func record(_ error: XMLError, code: Int32 = 0) {
        if first == nil {
            first = error
            firstCode = code
        }
    }

    /// The handler libxml2 calls; `userData` is an unretained pointer to a collector.
    static let handler: xmlStructuredErrorFunc = { userData, error in
        guard let userData, let error else { return }
        let collector = Unmanaged<XMLErrorCollector>.fromOpaque(userData).takeUnretainedValue()
        collector.take(error.pointee)
    }

    private func take(_ error: xmlError) {
        guard error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        // XPath errors reported to a context's handler come without a message: name all XPath errors from
        // their code, so compile and evaluation errors read the same.
        var text = Self.xpathMessages[Int(error.code)]
            ?? error.message.map { String(cString: $0) }
            ?? "XML error \(error.code)"
        while let last = text.last, last.isWhitespace { text.removeLast() }
        // libxml2's own advice names one of its parser flags, which a user cannot set: say what the limit is.
        if let range = text.range(of: "Excessive depth in document: "), let depth = Int(text[range.upperBound...].prefix { $0.isNumber }) {
            text = "nesting deeper than \(depth) levels"
        }
        // An entity loop is found while parsing the entity's text, whose line numbers start again at 1:
        // report it where the parser is in the document instead (line 0 makes the reader fill that in).
        let inEntity = error.code == Int32(XML_ERR_ENTITY_LOOP.rawValue)
        record(XMLError(message: text, line: inEntity ? 0 : Int(error.line), column: inEntity ? 0 : Int(error.int2)), code: error.code)
    }

    /// XPath error codes (1200 + `xmlXPathError`) and what they mean.
    static let xpathMessages: [Int: String] = [
        1201: "malformed number", 1202: "unfinished literal", 1203: "a literal was expected", 1204: "a variable reference was expected",
        1205: "undefined variable", 1206: "invalid predicate", 1207: "invalid expression", 1208: "missing closing bracket",
        1209: "unknown function", 1210: "invalid operand", 1211: "invalid type", 1212: "wrong number of arguments",
        1213: "invalid context size", 1214: "invalid context position", 1215: "out of memory", 1216: "syntax error",
        1217: "resource error", 1218: "sub-resource error", 1219: "undefined namespace prefix", 1220: "encoding error",
        1221: "invalid character", 1222: "invalid context", 1223: "evaluation stack error", 1224: "variables are not allowed",
        1225: "the expression takes too many steps", 1226: "the expression nests too deeply",
    ]

    /// Runs `body` with libxml2's thread-local structured error handler pointing at this collector (for
    /// errors libxml2 raises without a parser context, such as I/O errors), then restores the previous one.
    func capturing<T>(_ body: () throws -> T) rethrows -> T {
        let previousHandler = __xmlStructuredError()?.pointee
        let previousContext = __xmlStructuredErrorContext()?.pointee
        xmlSetStructuredErrorFunc(Unmanaged.passUnretained(self).toOpaque(), Self.handler)
        defer { xmlSetStructuredErrorFunc(previousContext, previousHandler) }
        return try body()
    }
}
