import Exporters
import Pipeline

/// `type: exec` as a stage: hands each event to a program and takes back what it answers (docs/exec-plugins.md).
/// One program runs for the whole run. For every event line it reads, it writes one line, in order: the event
/// (changed or not), an array of events (none drops it, several split it), `null` (drops it) or
/// `{"error": "reason"}` (rejects it: reported with the event's file, line and UID). The events go to the
/// program while its answers come back, so neither side waits for the other (`ProcessPump`).
///
/// The stage works on events as sources read them: it belongs before `expand` (the loader adds `expand` after
/// the stages a pipeline lists, so a pipeline that names no `expand` has it right).
// @unchecked Sendable: its running program (`pump`) is started by the first batch and ended by `finish`, called as the plugin contract says (one call at a time, one run at a time).
public final class ExecStage: Stage, @unchecked Sendable {
    public static let descriptor = StageDescriptor(
        type: "exec",
        kind: .stage,
        summary: "Change, split, drop or reject events with a program (JSON lines in, JSON lines out)",
        options: ExecCommand.Options.self,
        make: { options, context in ExecStage(command: try ExecCommand.make(options, context: context, plugin: "exec stage")) }
    )

    let command: ExecCommand
    private var pump: ProcessPump?
    private let writer = JSONBytes(pretty: false)

    init(command: ExecCommand) {
        self.command = command
    }

    private func started(_ context: RunContext) throws -> ProcessPump {
        if let pump { return pump }
        let started = try ProcessPump.start(command, withInput: true, context: context)
        pump = started
        return started
    }

    public func process(_ batch: Batch, context: RunContext) throws -> Batch {
        guard !batch.events.isEmpty else { return batch }
        guard batch.occurrences.isEmpty, batch.days.isEmpty else {
            throw CalpipeError("\(command.plugin): it works on events as read; place it before the expand stage")
        }
        let pump = try started(context)
        for event in batch.events { pump.send(ExecRecords.line(event, writer: writer)) }
        var out: [Event] = []
        out.reserveCapacity(batch.events.count)
        var answered = 0
        try pump.pump(until: { answered == batch.events.count }) { line, number in
            let input = batch.events[answered]
            answered += 1
            let place = input.origin ?? SourceLocation(file: command.label, line: number)
            // The dead-letter file gets the event as the program was given it.
            func given() -> String { String(decoding: ExecRecords.line(input, writer: writer).dropLast(), as: UTF8.self) }
            switch ExecRecords.answer(line, context: context, warn: { context.warn("\(command.label): answer to event \"\(input.uid)\": \($0)") }) {
            case .events(let events):
                for var event in events {
                    // What the program cannot know stays: where the event came from and its source's labels.
                    event.origin = input.origin
                    for (key, value) in input.metadata where event.metadata[key] == nil { event.metadata[key] = value }
                    out.append(event)
                }
                if events.isEmpty { context.report.count("dropped by exec") }
            case .rejected(let reason), .failed(_, let reason):
                context.report.reject(place, "\(command.label) rejected the event \"\(input.uid)\": \(reason)", raw: given())
            case .outcome:
                context.report.reject(place, "\(command.label) answered the event \"\(input.uid)\" with an outcome, expected events", raw: given())
            case .invalid(let reason):
                context.report.reject(place, "\(command.label) answered the event \"\(input.uid)\" with what is not an event: \(reason)", raw: given())
            }
        }
        guard answered == batch.events.count else {
            // The program's output ended early: it has ended, or is about to.
            let exit = try pump.finish(line: { _, _ in })
            self.pump = nil
            throw command.failure("answered \(answered) of \(batch.events.count) events and then \(exit)" + pump.lastErrorSuffix)
        }
        var result = batch
        result.events = out
        return result
    }

    public func finish(context: RunContext, emit: (Batch) throws -> Void) throws {
        guard let pump else { return }
        self.pump = nil
        var extra = 0
        let exit = try pump.finish(line: { _, _ in extra += 1 })
        guard exit.succeeded else { throw command.failure("\(exit)" + pump.lastErrorSuffix) }
        if extra > 0 { context.warn("\(command.plugin): \(command.label) wrote \(extra) more lines after its last answer; they were ignored") }
    }
}
