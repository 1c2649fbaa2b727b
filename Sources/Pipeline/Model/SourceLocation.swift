/// Where a record came from, for messages: a file (or URL, or "-" for stdin) and a line or a JSON path.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var path: String?

    public init(file: String, line: Int? = nil, path: String? = nil) {
        self.file = file
        self.line = line
        self.path = path
    }

    /// "file:12", "file: [3].start" or "file".
    public var description: String {
        if let line { return "\(file):\(line)" }
        if let path { return "\(file): \(path)" }
        return file
    }
}
