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
        var text = error.message.map { String(cString: $0) } ?? "XML error \(error.code)"
        while let last = text.last, last.isWhitespace { text.removeLast() }
        // An entity loop is found while parsing the entity's text, whose line numbers start again at 1:
        // report it where the parser is in the document instead (line 0 makes the reader fill that in).
        let inEntity = error.code == Int32(XML_ERR_ENTITY_LOOP.rawValue)
        record(XMLError(message: text, line: inEntity ? 0 : Int(error.line), column: inEntity ? 0 : Int(error.int2)), code: error.code)
    }

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
