import Pipeline

/// `type: exec` as a source: runs a program and reads the events it writes, one JSON object per line in
/// calpipe's event form (docs/exec-plugins.md). A line `{"error": "reason"}` rejects a record the program could
/// not make (reported with the line, like a bad record of a file); text on its error output becomes warnings. A
/// program that exits with another status than 0, is killed, or outlives its `timeout` fails the source: the run
/// fails and no sink forgets what it had from it.
public final class ExecSource: EventSource {
    public static let descriptor = SourceDescriptor(
        type: "exec",
        kind: .source,
        summary: "Events from a program's output: one JSON event per line (any language)",
        options: ExecCommand.Options.self,
        make: { options, context in ExecSource(command: try ExecCommand.make(options, context: context, plugin: "exec source")) }
    )

    static let batchSize = 1000
    let command: ExecCommand

    init(command: ExecCommand) {
        self.command = command
    }

    public func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        context.runState.sourceLedger.noteOrigin("program")
        let pump = try ProcessPump.start(command, withInput: false, context: context)
        let label = command.label
        var batch: [Event] = []
        func take(_ line: ArraySlice<UInt8>, _ number: Int) throws {
            let location = SourceLocation(file: label, line: number)
            switch ExecRecords.answer(line, context: context, warn: { context.warn("\(label):\(number): \($0)") }) {
            case .events(let events):
                for var event in events {
                    event.origin = location
                    batch.append(event)
                }
            case .rejected(let reason), .failed(_, let reason):
                context.report.reject(location, "the program rejected the record: \(reason)", raw: String(decoding: line, as: UTF8.self))
            case .outcome:
                context.report.reject(location, "expected an event object, got an outcome", raw: String(decoding: line, as: UTF8.self))
            case .invalid(let reason):
                context.report.reject(location, reason, raw: String(decoding: line, as: UTF8.self))
            }
            if batch.count >= Self.batchSize {
                try emit(Batch(events: batch))
                batch.removeAll(keepingCapacity: true)
            }
        }
        try pump.pump(until: { false }, line: take)
        let exit = try pump.finish(line: take)
        guard exit.succeeded else { throw command.failure("\(exit)" + pump.lastErrorSuffix) }
        if !batch.isEmpty { try emit(Batch(events: batch)) }
    }
}
