/// Why one record could not become an event: the field (as a path inside the record) and what was expected.
package struct MappingError: Error, Equatable, CustomStringConvertible, Sendable {
    /// Path inside the record, e.g. "start" or "when.begin".
    package var field: String
    package var message: String

    package init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    package var description: String { "\(field): \(message)" }
}
