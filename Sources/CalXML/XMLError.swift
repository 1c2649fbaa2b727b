/// An XML problem with the place it was found: the input's label, 1-based line and column (0 when unknown).
package struct XMLError: Error, CustomStringConvertible, Equatable, Sendable {
    package let message: String
    package let line: Int
    package let column: Int
    /// The input's name for messages (path as written, URL, "-"); nil when the XML came from memory.
    package let file: String?

    package init(message: String, line: Int, column: Int, file: String? = nil) {
        self.message = message
        self.line = line
        self.column = column
        self.file = file
    }

    /// "feed.xml:12:7: message", "feed.xml:12: message" without a column, "line 12, column 7: message" without a file.
    package var description: String {
        guard let file else { return "line \(line), column \(column): \(message)" }
        if line <= 0 { return "\(file): \(message)" }
        if column <= 0 { return "\(file):\(line): \(message)" }
        return "\(file):\(line):\(column): \(message)"
    }

    /// The same error attributed to an input.
    package func inFile(_ label: String) -> XMLError {
        XMLError(message: message, line: line, column: column, file: label)
    }
}
