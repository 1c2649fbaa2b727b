/// Why one record could not become an event: the field (as a path inside the record) and what was expected.
public struct MappingError: Error, Equatable, CustomStringConvertible, Sendable {
    /// Path inside the record, e.g. "start" or "when.begin".
    public var field: String
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }
}
