import Pipeline

/// What one item of a service's page becomes.
enum CloudItem {
    case event(Event)
    /// An event, a series or one instance that left the calendar (a delta read only).
    case deletion(Deletion)
    /// Nothing: a cancelled event in a whole read (the service lists only what still exists).
    case skipped
}

/// Why one item cannot be read: the field and what was expected. The source rejects the item (exit 3) and reads on.
struct ItemProblem: Error {
    var field: String
    var message: String
}

extension JSONObject {
    /// A member that must be a text, else an `ItemProblem` naming `path`.
    func text(_ key: String, in path: String) throws -> String {
        guard let value = self[key] else { throw ItemProblem(field: path + key, message: "missing") }
        guard let text = value.stringValue else { throw ItemProblem(field: path + key, message: "expected a string, got \(value.kindDescription)") }
        return text
    }

    /// A member's text when it is a non-empty string (anything else counts as absent).
    func optionalText(_ key: String) -> String? {
        guard let text = self[key]?.stringValue, !text.isEmpty else { return nil }
        return text
    }
}

/// One page's items made into events and deletions, handed on as one batch (a page is at most a few thousand
/// items: the service's page size bounds the memory). An item that cannot be read is rejected with its place
/// (`page 2: items[3].start.dateTime`) and the others are read.
enum CloudPage {
    /// - Parameters:
    ///   - skipped: the counter a skipped item adds to (`report.count`).
    static func emit(_ items: [JSONValue], page: Int, label: String, skipped: String, context: RunContext, emit: (Batch) throws -> Void,
                     item make: (JSONObject) throws -> CloudItem) throws {
        var events: [Event] = []
        var deletions: [Deletion] = []
        for (i, value) in items.enumerated() {
            let path = "page \(page): items[\(i)]"
            do {
                guard let object = value.objectValue else { throw ItemProblem(field: "", message: "expected an event object, got \(value.kindDescription)") }
                switch try make(object) {
                case .event(var event):
                    event.origin = SourceLocation(file: label, path: path)
                    events.append(event)
                case .deletion(let deletion): deletions.append(deletion)
                case .skipped: context.report.count(skipped)
                }
            } catch let problem as ItemProblem {
                context.report.reject(SourceLocation(file: label, path: path + (problem.field.isEmpty ? "" : "." + problem.field)), problem.message)
            }
        }
        var batch = Batch(events: events)
        batch.deletions = deletions
        if !batch.isEmpty { try emit(batch) }
    }
}
