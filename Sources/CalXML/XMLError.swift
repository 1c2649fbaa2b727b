/// An XML problem with the place it was found: the input's label, 1-based line and column (0 when unknown).
public struct XMLError: Error, CustomStringConvertible, Equatable, Sendable {
    public let message: String
    public let line: Int
    public let column: Int
    /// The input's name for messages (path as written, URL, "-"); nil when the XML came from memory.
    public let file: String?

    public init(message: String, line: Int, column: Int, file: String? = nil) {
        self.message = message
        self.line = line
        self.column = column
        self.file = file
    }

    /// "feed.xml:12:7: message", "feed.xml:12: message" without a column, "line 12, column 7: message" without a file.
    public var description: String {
        guard let file else { return "line \(line), column \(column): \(message)" }
        if line <= 0 { return "\(file): \(message)" }
        if column <= 0 { return "\(file):\(line): \(message)" }
        return "\(file):\(line):\(column): \(message)"
    }

    /// The same error attributed to an input.
    public func inFile(_ label: String) -> XMLError {
        XMLError(message: message, line: line, column: column, file: label)
    }
}
