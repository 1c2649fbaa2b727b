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
            options.rejectUnknownKeys(ICSSource.optionDocs.map(\.name))
            let spec = InputSpec.decode(options)
            let scanThread = options.bool("scan_thread", default: ICSSource.defaultScanThread)
            try options.finish()
            guard let spec else { throw OptionsRejected() }
            return ICSSource(input: spec, scanThread: scanThread)
        }
    )

    public static let optionDocs = InputSpec.optionDocs + [
        OptionDoc("scan_thread", "boolean",
                  "read and split the text on a second thread while events are built on the first: faster when a second core is really free, slower when it is not (the two threads' allocations then contend)",
                  default: "false"),
    ]

    /// One thread unless asked: on the shared 2-core benchmark machine the two-thread reader was faster in its
    /// best runs (0.60 s against 0.73 s for the 74 MB feed) but slower in the median (0.89 s against 0.76 s).
    public static let defaultScanThread = false

    public let input: InputSpec
    /// Whether files are scanned on a second thread (`ICSPipelinedReader`); the results are the same.
    public let scanThread: Bool
    /// Events handed on per batch. Small enough that a batch's strings and arrays are still in the CPU cache
    /// when a dry run or a sink releases them (1,000 cost about 20% more CPU time on the benchmark feed).
    public static let batchSize = 128

    public init(input: InputSpec, scanThread: Bool = ICSSource.defaultScanThread) {
        self.input = input
        self.scanThread = scanThread
    }

    public func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        for file in try input.inputs(context: context) {
            let chunks = try ChunkReader(path: file.path, label: file.label)
            var events: [Event] = []
            events.reserveCapacity(Self.batchSize)
            // Stamped here, one shared dictionary, so the runner need not copy each batch to stamp it.
            let metadata = context.currentSourceLabel.map { ["source": $0] } ?? [:]
            try withoutActuallyEscaping(emit) { emit in
                let handlers = ICSReader.Handlers(
                    event: { (event: consuming Event) in
                        if !metadata.isEmpty { event.metadata = metadata }
                        events.append(consume event)
                        if events.count >= Self.batchSize {
                            try emit(Batch(events: events))
                            events.removeAll(keepingCapacity: true)
                        }
                    },
                    reject: { location, reason in context.report.reject(location, reason) },
                    warn: { context.warn($0) },
                    skip: { context.report.count("skipped " + $0) }
                )
                if scanThread {
                    // Scanning runs on a second thread, events are built and handed on here.
                    try ICSPipelinedReader.read(chunks, label: file.label, zones: context.environment.zones,
                                                fallbackZone: context.zone, handlers: handlers)
                } else {
                    let reader = ICSReader(label: file.label, zones: context.environment.zones, fallbackZone: context.zone, handlers: handlers)
                    try chunks.forEachChunk { try reader.feed($0) }
                    try reader.finish()
                }
                if !events.isEmpty { try emit(Batch(events: events)) }
            }
        }
    }
}
