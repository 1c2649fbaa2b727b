import Pipeline

/// `type: ics`: reads iCalendar (RFC 5545) files, globs, stdin or URLs with the streaming `ICSReader`.
/// VEVENTs become events (VALARMs kept with them); VTODO, VJOURNAL and VFREEBUSY are skipped and counted;
/// broken components are rejected one by one with file and line.
public final class ICSSource: EventSource {
    public static let descriptor = SourceDescriptor(
        type: "ics",
        kind: .source,
        summary: "iCalendar (RFC 5545) files: Outlook, Google, Apple and other feeds, streamed",
        options: InputSpec.optionDocs,
        fileExtensions: ["ics", "ical", "ifb"],
        make: { options in
            options.rejectUnknownKeys(InputSpec.optionDocs.map(\.name))
            let spec = InputSpec.decode(options)
            try options.finish()
            guard let spec else { throw OptionsRejected() }
            return ICSSource(input: spec)
        }
    )

    public let input: InputSpec
    /// Events handed on per batch. Small enough that a batch's strings and arrays are still in the CPU cache
    /// when a dry run or a sink releases them (1,000 cost about 20% more CPU time on the benchmark feed).
    public static let batchSize = 128

    public init(input: InputSpec) {
        self.input = input
    }

    public func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        for file in try input.inputs(context: context) {
            let chunks = try ChunkReader(path: file.path, label: file.label)
            var events: [Event] = []
            events.reserveCapacity(Self.batchSize)
            // Stamped here, one shared dictionary, so the runner need not copy each batch to stamp it.
            let metadata = context.currentSourceLabel.map { ["source": $0] } ?? [:]
            try withoutActuallyEscaping(emit) { emit in
                // Scanning runs on a second thread, events are built and handed on here (see ICSPipelinedReader).
                try ICSPipelinedReader.read(
                    chunks, label: file.label, zones: context.environment.zones, fallbackZone: context.zone,
                    handlers: .init(
                        event: { (event: consuming Event) in
                            if !metadata.isEmpty { event.metadata = metadata }
                            events.append(event)
                            if events.count >= Self.batchSize {
                                try emit(Batch(events: events))
                                events.removeAll(keepingCapacity: true)
                            }
                        },
                        reject: { location, reason in context.report.reject(location, reason) },
                        warn: { context.warn($0) },
                        skip: { context.report.count("skipped " + $0) }
                    )
                )
                if !events.isEmpty { try emit(Batch(events: events)) }
            }
        }
    }
}
