import Foundation
import Pipeline

/// `type: ics`: reads iCalendar (RFC 5545) files, globs, stdin or URLs with the streaming `ICSReader`.
/// VEVENTs become events (VALARMs kept with them); VTODO, VJOURNAL and VFREEBUSY are skipped and counted;
/// broken components are rejected one by one with file and line.
package final class ICSSource: EventSource {
    package static let descriptor = SourceDescriptor(
        type: "ics",
        kind: .source,
        summary: "iCalendar (RFC 5545) files: Outlook, Google, Apple and other feeds, streamed",
        options: Options.self,
        fileExtensions: ["ics", "ical", "ifb"],
        make: { options, _ in ICSSource(input: options.input.spec, workers: options.workers, strict: options.strict) }
    )

    /// The `ics` source's options.
    package struct Options: OptionConfig {
        var input = InputOptions()
        var workers: Int?
        var strict = false

        package init() {}

        package static let options = OptionSpec<Options> {
            Include(\.input)
            Key("workers", \.workers, .integer(in: 0...64),
                "threads that parse the events' lines and make the events while the file is read (0: all on one thread); the events, rejections and warnings are the same",
                default: "the cores the run leaves idle: one per core (at most 4) when no sink writes (a dry run) or every sink writes lightly (json events, occurrences), else 0")
            Key("strict", \.strict, .boolean,
                "reject an event instead of repairing it (dropping an unreadable RRULE, RDATE or line, closing a component that never ends, ...), as --strict does for every source",
                default: "false: repair, keep the event and report what was done")
        }
    }

    package let input: InputSpec
    /// Threads that make the events (`ICSReader`'s `workers`; nil: `RunContext.idleCores`). The results are the same.
    package let workers: Int?
    /// Events handed on per batch. Small enough that a batch's strings and arrays are still in the CPU cache
    /// when a dry run or a sink releases them (1,000 cost about 20% more CPU time on the benchmark feed).
    package static let batchSize = 128

    /// Every repair rejects its event instead (the source's `"strict": true`; `--strict` does it for every source).
    package let strict: Bool

    package init(input: InputSpec, workers: Int? = nil, strict: Bool = false) {
        self.input = input
        self.workers = workers
        self.strict = strict
    }

    package func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        let files = try input.inputs(context: context)
        let unchanged = unchangedCheck(files: files, context: context)
        var fileIndex = 0
        try input.forEachInput(context: context, strict: strict, emit: emit) { file, emit in
            defer { fileIndex += 1 }
            try read(file, fileIndex: fileIndex, unchanged: unchanged, context: context, emit: emit)
        }
        if unchanged != nil, let label = context.runState.currentSourceLabel, let run = context.runState.incremental {
            context.report.count("events unchanged (not parsed)", by: run.unparsedCount(source: label))
        }
    }

    /// Reads one file of the input.
    private func read(_ file: InputSpec.Input, fileIndex: Int, unchanged: UnchangedEvents?,
                      context: RunContext, emit: (Batch) throws -> Void) throws {
        let chunks = try ChunkReader(path: file.path, label: file.label, progress: context.report)
        var events: [Event] = []
        events.reserveCapacity(Self.batchSize)
        // Stamped here with the runner's stamp (events of a calendar share one dictionary), so the runner need
        // not copy each batch to stamp it.
        var stamp = context.runState.currentSourceLabel.map(SourceStamp.init(label:))
        try withoutActuallyEscaping(emit) { emit in
            var handlers = ICSReader.Handlers(
                event: { (event: consuming Event) in
                    stamp?.stamp(&event.metadata)
                    events.append(consume event)
                    if events.count >= Self.batchSize {
                        // Handed on whole: this closure keeps no reference to the events, so the sink that gets the
                        // batch last may move them out rather than copy them (`Sink.write(owned:)`).
                        var full: [Event] = []
                        full.reserveCapacity(Self.batchSize)
                        swap(&full, &events)
                        try emit(Batch(events: consume full))
                    }
                },
                reject: { location, reason in context.report.reject(location, reason) },
                warn: { context.warn($0) },
                skip: { context.report.count("skipped " + $0) },
                repair: { context.repair($0) }
            )
            handlers.rejectEvent = { location, reason, text in context.report.reject(location, reason, raw: text) }
            handlers.unchanged = unchanged.map { u in { u.check($0, nil, fileIndex, $1) } }
            let fileReader = ICSReader(label: file.label, zones: context.environment.zones, fallbackZone: context.zone,
                                       workers: workers ?? context.runState.idleCores, strict: strict || context.strict, handlers: handlers)
            // The events the quick pass found with a stored text are skipped unread where the check agrees.
            var feeder = ICSUnchangedRegions.Feeder(unchanged.flatMap { fileIndex < $0.regions.count ? $0.regions[fileIndex] : nil }, path: file.path)
            try chunks.forEachChunk { chunk in
                try feeder.feed(chunk, to: fileReader) { stored, line in unchanged?.check(0, stored, fileIndex, line) ?? false }
            }
            try fileReader.finish()
            if !events.isEmpty { try emit(Batch(events: events)) }
        }
    }
}
