import Foundation
import Pipeline

/// `type: ics`: reads iCalendar (RFC 5545) files, globs, stdin or URLs with the streaming `ICSReader`.
/// VEVENTs become events (VALARMs kept with them); VTODO, VJOURNAL and VFREEBUSY are skipped and counted;
/// broken components are rejected one by one with file and line.
public final class ICSSource: EventSource {
    public static let descriptor = SourceDescriptor(
        type: "ics",
        kind: .source,
        summary: "iCalendar (RFC 5545) files: Outlook, Google, Apple and other feeds, streamed",
        options: ICSSource.optionDocs,
        fileExtensions: ["ics", "ical", "ifb"],
        make: { options in
            let spec = InputSpec.decode(options)
            let workers = options.contains("workers") ? options.integer("workers", default: 0, range: 0...64) : nil
            let strict = options.bool("strict", default: false)
            try options.finish()
            guard let spec else { throw CalpipeError.optionsRejected }
            return ICSSource(input: spec, workers: workers, strict: strict)
        }
    )

    public static let optionDocs = InputSpec.optionDocs + [
        OptionDoc("workers", "integer",
                  "threads that parse the events' lines and make the events while the file is read (0: all on one thread); the events, rejections and warnings are the same",
                  default: "the cores the run leaves idle: one per core (at most 4) when no sink writes (a dry run), else 0"),
        OptionDoc("strict", "boolean",
                  "reject an event instead of repairing it (dropping an unreadable RRULE, RDATE or line, closing a component that never ends, ...), as --strict does for every source",
                  default: "false: repair, keep the event and report what was done"),
    ]


    public let input: InputSpec
    /// Threads that make the events (`ICSReader`'s `workers`; nil: `RunContext.idleCores`). The results are the same.
    public let workers: Int?
    /// Events handed on per batch. Small enough that a batch's strings and arrays are still in the CPU cache
    /// when a dry run or a sink releases them (1,000 cost about 20% more CPU time on the benchmark feed).
    public static let batchSize = 128

    /// Every repair rejects its event instead (the source's `"strict": true`; `--strict` does it for every source).
    public let strict: Bool

    public init(input: InputSpec, workers: Int? = nil, strict: Bool = false) {
        self.input = input
        self.workers = workers
        self.strict = strict
    }

    public func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        let files = try input.inputs(context: context)
        let unchanged = unchangedCheck(files: files, context: context)
        for (fileIndex, file) in files.enumerated() {
            let chunks = try ChunkReader(path: file.path, label: file.label, progress: context.report)
            var events: [Event] = []
            events.reserveCapacity(Self.batchSize)
            // Stamped here, one shared dictionary, so the runner need not copy each batch to stamp it.
            let metadata = context.currentSourceLabel.map { ["source": $0] } ?? [:]
            // With the calendar's name (X-WR-CALNAME): one shared dictionary per name, not a copy per event.
            var named: (calendar: String, metadata: [String: String])?
            var reader: ICSReader?
            try withoutActuallyEscaping(emit) { emit in
                var handlers = ICSReader.Handlers(
                    event: { (event: consuming Event) in
                        if !metadata.isEmpty {
                            // One shared dictionary for the common case; a calendar name is kept beside the source.
                            if event.metadata.isEmpty {
                                event.metadata = metadata
                            } else if event.metadata.count == 1, let calendar = event.metadata["calendar"] {
                                if named?.calendar != calendar {
                                    var both = metadata
                                    both["calendar"] = calendar
                                    named = (calendar, both)
                                }
                                event.metadata = named!.metadata
                            } else {
                                event.metadata["source"] = metadata["source"]
                            }
                        }
                        events.append(consume event)
                        if events.count >= Self.batchSize {
                            try emit(Batch(events: events))
                            // What the pipeline did not keep is freed by the reader's workers.
                            var spent: [Event] = []
                            spent.reserveCapacity(Self.batchSize)
                            swap(&spent, &events)
                            if let reader { reader.dispose(spent) }
                        }
                    },
                    reject: { location, reason in context.report.reject(location, reason) },
                    warn: { context.warn($0) },
                    skip: { context.report.count("skipped " + $0) },
                    repair: { context.repair($0) }
                )
                handlers.unchanged = unchanged.map { check in { check($0, fileIndex, $1) } }
                let fileReader = ICSReader(label: file.label, zones: context.environment.zones, fallbackZone: context.zone,
                                           workers: workers ?? context.idleCores, strict: strict || context.strict, handlers: handlers)
                reader = fileReader
                defer { reader = nil }
                try chunks.forEachChunk { try fileReader.feed($0) }
                try fileReader.finish()
                if !events.isEmpty { try emit(Batch(events: events)) }
            }
        }
        if unchanged != nil, let label = context.currentSourceLabel, let run = context.incremental {
            context.report.count("events unchanged (not parsed)", by: run.unparsedCount(source: label))
        }
    }
}
