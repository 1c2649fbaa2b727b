import Pipeline

/// A source that emits events a program holds (the library's jobs on values): one batch, as given.
final class ValuesSource: EventSource {
    static let type = "calpipe-values"

    static func descriptor(_ events: [Event]) -> SourceDescriptor {
        SourceDescriptor(type: type, kind: .source, summary: "events given in code", make: { _ in ValuesSource(events) })
    }

    let events: [Event]
    init(_ events: [Event]) { self.events = events }

    func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        try emit(Batch(events: events, content: .events))
    }
}
