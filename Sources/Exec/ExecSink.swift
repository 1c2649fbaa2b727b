import Exporters
import Pipeline

/// `type: exec` as a sink: writes every event, one JSON object per line in calpipe's event form, to a program's
/// input (docs/exec-plugins.md). The program may answer on its output, a line per record it wants to speak of:
/// `{"uid": "...", "outcome": "created"}` (any `RecordOutcome`), or `{"uid": "...", "error": "reason"}` (that record
/// failed). It commits by ending: calpipe closes its input, and an exit status other than 0 fails the run.
///
/// What a program does cannot be taken back, so the sink is `remote`: it commits after every local output is in
/// place, and a failed run stops the program without undoing what it did.
// @unchecked Sendable: its running program (`pump`) and the count of records are set by `open`, `write` and `commit`, called as the plugin contract says (one call at a time, one run at a time).
public final class ExecSink: Sink, @unchecked Sendable {
    public static let descriptor = SinkDescriptor(
        type: "exec",
        kind: .sink,
        summary: "Hand every event to a program as JSON lines (it reports each record's outcome)",
        options: ExecCommand.Options.self,
        make: { options, context in ExecSink(command: try ExecCommand.make(options, context: context, plugin: "exec sink")) }
    )

    let command: ExecCommand
    private var pump: ProcessPump?
    private let writer = JSONBytes(pretty: false)
    private var written = 0

    init(command: ExecCommand) {
        self.command = command
    }

    public var needs: BatchContent { .events }
    public var label: String { "exec \(command.label)" }
    public var commitKind: SinkCommit { .remote }

    public func open(context: RunContext) throws {
        pump = try ProcessPump.start(command, withInput: true, context: context)
    }

    private func answer(_ line: ArraySlice<UInt8>, _ number: Int, context: RunContext) {
        switch ExecRecords.answer(line, context: context, warn: { _ in }) {
        case .outcome(_, let outcome):
            context.report.record(outcome, sink: label)
        case .failed(let uid, let reason):
            context.report.recordFailure(sink: label, record: uid.map { "UID \"\($0)\"" } ?? "output line \(number)", reason: reason)
        case .rejected(let reason):
            context.report.recordFailure(sink: label, record: "output line \(number)", reason: reason)
        default:
            context.warn("\(command.plugin): \(command.label): output line \(number) is not an outcome ({\"uid\": ..., \"outcome\": \"created\"}); ignored")
        }
    }

    public func write(_ batch: Batch, context: RunContext) throws {
        guard let pump else { return }
        for event in batch.events { pump.send(ExecRecords.line(event, writer: writer)) }
        written += batch.events.count
        try pump.pump(until: { !pump.hasQueuedInput || pump.inputRefused }) { self.answer($0, $1, context: context) }
        if pump.inputRefused {
            throw command.failure("stopped reading its input after part of the events" + pump.lastErrorSuffix)
        }
    }

    public func commit(context: RunContext) throws -> Int {
        guard let pump else { return 0 }
        self.pump = nil
        let exit = try pump.finish { self.answer($0, $1, context: context) }
        guard exit.succeeded else { throw command.failure("\(exit)" + pump.lastErrorSuffix) }
        return written
    }

    public func abort(context: RunContext) {
        pump?.child.stop()
        pump = nil
    }
}
