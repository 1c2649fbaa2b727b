/// An XML problem with the place it was found.
public struct XMLError: Error, CustomStringConvertible, Equatable, Sendable {
    public let message: String
    public let line: Int
    public let column: Int

    public init(message: String, line: Int, column: Int) {
        self.message = message
        self.line = line
        self.column = column
    }

    public var description: String { "line \(line), column \(column): \(message)" }
}
