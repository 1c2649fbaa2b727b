import Foundation
import Pipeline

/// `type: ics`: writes an RFC 5545 calendar: the source events as they are (with their recurrence rules,
/// `expand: false`, the default) or one VEVENT per occurrence (`expand: true`, with RECURRENCE-ID).
/// One VTIMEZONE per zone used, generated for the years the events span; unknown properties and VALARMs kept.
/// Deterministic (same input, same bytes) and atomic (temporary file, then rename); `"path": "-"` is stdout.
public final class ICSSink: Sink {
    public static let descriptor = SinkDescriptor(
        type: "ics",
        kind: .sink,
        summary: "Write an RFC 5545 iCalendar file (source events or one VEVENT per occurrence), atomically",
        options: [
            OptionDoc("path", "path", required: true, "output file, or \"-\" for standard output; relative to the pipeline file"),
            OptionDoc("expand", "boolean", "one VEVENT per occurrence (with RECURRENCE-ID) instead of the source events with their rules", default: "false"),
        ],
        fileExtensions: ["ics"],
        make: { options in
            options.rejectUnknownKeys(["path", "expand"])
            let path = options.path("path", required: true)
            let expand = options.bool("expand", default: false)
            try options.finish()
            guard let path else { throw OptionsRejected() }
            return ICSSink(path: path, expand: expand, label: options.string("path"))
        }
    )

    public static let productID = "-//calpipe//calpipe 1.0//EN"

    public let path: String
    public let expand: Bool
    private let writtenPath: String
    private var file: AtomicFile?
    /// VEVENTs wait in a scratch file until the end, when the zones they use are known.
    private var scratch: ScratchFile?
    private var writer = ICSEventWriter()
    private var rows = 0

    public init(path: String, expand: Bool = false, label: String? = nil) {
        self.path = path
        self.expand = expand
        writtenPath = label ?? path
    }

    public var needs: BatchContent { expand ? .occurrences : .events }
    public var label: String { "ics \(writtenPath)" }

    public func open(context: RunContext) throws {
        file = try AtomicFile(path: path, label: writtenPath, cancellation: context.cancellation)
        scratch = try ScratchFile()
        writer = ICSEventWriter(openEndedYear: max(2037, context.window?.to.year ?? 0))
        rows = 0
    }

    public func write(_ batch: Batch, context: RunContext) throws {
        guard let scratch else { return }
        if expand {
            for occurrence in batch.effectiveOccurrences { writer.write(occurrence); rows += 1 }
        } else {
            for event in batch.events { writer.write(event); rows += 1 }
        }
        try scratch.append(writer.lines.bytes)
        writer.lines.removeAll()
    }

    public func commit(context: RunContext) throws -> Int {
        guard let file, let scratch else { return 0 }
        var head = ICSLineWriter()
        head.begin("VCALENDAR")
        head.property("VERSION", [], "2.0")
        head.property("PRODID", [], Self.productID)
        head.property("CALSCALE", [], "GREGORIAN")
        for used in writer.zonesUsed {
            let years = used.firstYear <= used.lastYear ? used.firstYear...used.lastYear : 1970...1970
            ICSTimeZoneWriter.write(used.zone, tzid: used.tzid, years: years, to: &head)
        }
        try file.write(bytes: head.bytes)
        try scratch.copy { try file.write(bytes: $0) }
        var tail = ICSLineWriter()
        tail.end("VCALENDAR")
        try file.write(bytes: tail.bytes)
        try file.commit()
        self.file = nil
        self.scratch = nil
        return rows
    }

    public func abort(context: RunContext) {
        file?.abort()
        file = nil
        scratch = nil
    }
}
