import Pipeline

/// A streaming iCalendar (RFC 5545) reader: feed it bytes in chunks of any size, it calls back with each
/// VEVENT as an `Event`, each rejected component with its location and reason, and each warning.
///
/// This is the reusable entry point for everything that carries iCalendar text: the `ics` source feeds it file
/// chunks; the CalDAV importer feeds it the text of each `calendar-data` element, with `firstLine` set to where
/// that text starts in the XML document so messages point at the right line.
///
/// ```swift
/// let reader = ICSReader(label: "team.ics", zones: context.environment.zones, fallbackZone: context.zone,
///                        handlers: .init(event: { events.append($0) },
///                                        reject: { context.report.reject($0, $1) },
///                                        warn: { context.warn($0) },
///                                        skip: { context.report.count("skipped " + $0) }))
/// try reader.feed(chunk)   // any number of times
/// try reader.finish()
/// ```
///
/// Guarantees: bytes are scanned for line ends and split on bytes; Strings are made only for the content lines
/// of components that are kept (VEVENT, VALARM, VTIMEZONE); one component at a time is held in memory (plus
/// events whose TZID is defined by a VTIMEZONE that comes later in the same VCALENDAR). Malformed lines,
/// bad values and BEGIN/END mismatches reject the enclosing VEVENT and reading goes on. Lines longer than
/// `Limits.maxLineBytes` and nesting deeper than `Limits.maxDepth` are rejected the same way. The only error
/// thrown by the reader itself is a `CalpipeError` (naming the input) for input that is not iCalendar at all; errors thrown by the
/// handlers propagate.
package final class ICSReader {
    /// Callbacks. `event` and `reject` may throw; the error stops reading and comes out of `feed`/`finish`.
    package struct Handlers {
        /// Takes the event (consuming: a handler that stores it needs no copy).
        package var event: (consuming Event) throws -> Void
        package var reject: (SourceLocation, String) throws -> Void
        /// Takes a rejected event with its text (BEGIN to END, unfolded) instead of `reject`, for the run's
        /// dead-letter file (`DeadLetterFile`). Nil: `reject` gets every rejection.
        package var rejectEvent: ((SourceLocation, String, String) throws -> Void)?
        package var warn: (String) -> Void
        /// Called once per skipped top-level component (VTODO, VJOURNAL, VFREEBUSY, ...) with its name.
        package var skip: (String) -> Void
        /// A record kept with a part dropped or fixed (never called under `strict`: the record is rejected
        /// instead). Nil: repairs are given to `warn` as text.
        package var repair: ((Repair) -> Void)?
        /// Called with the hash of each VEVENT's raw text (`Fingerprint.rawText(bytes:)` of BEGIN to END, unfolded:
        /// the event's `sourceText`) and the line of its BEGIN unless the scanner rejects it, before it is parsed;
        /// true leaves it out (an incremental run knows it unchanged, `IncrementalRun.unchangedTextCheck`). Nil:
        /// every event is made.
        package var unchanged: ((Int64, Int) -> Bool)?

        package init(event: @escaping (consuming Event) throws -> Void, reject: @escaping (SourceLocation, String) throws -> Void,
                    warn: @escaping (String) -> Void = { _ in }, skip: @escaping (String) -> Void = { _ in },
                    repair: ((Repair) -> Void)? = nil) {
            self.event = event
            self.reject = reject
            self.warn = warn
            self.skip = skip
            self.repair = repair
        }

        func report(_ repair: Repair) {
            if let handler = self.repair { handler(repair) } else { warn("repaired: \(repair)") }
        }
    }

    /// Caps that keep hostile input from exhausting memory.
    package struct Limits: Sendable {
        package var maxLineBytes: Int
        package var maxDepth: Int
        package init(maxLineBytes: Int = 4 << 20, maxDepth: Int = 16) {
            self.maxLineBytes = maxLineBytes
            self.maxDepth = maxDepth
        }
    }

    /// The file label used in every location and message.
    package let label: String
    private let scanner: ICSScanner
    /// Set when events are made on worker threads.
    private let parallel: ICSParallelBuilder?

    /// - Parameters:
    ///   - label: the file name (or URL) for messages.
    ///   - zones: the run's zone database (IANA names, prefixes, Windows names).
    ///   - fallbackZone: the zone for a TZID nothing defines (with a warning), usually the pipeline's zone.
    ///   - firstLine: the line number of the first byte fed, for text embedded in another document.
    ///   - workers: threads that parse the events' lines and make the events while this one reads (0: all on
    ///     this thread). The handlers are still called on this thread, with exactly the same calls in the same
    ///     order.
    ///   - strict: every repair (a dropped or fixed part of an event, see docs/formats.md) rejects the event
    ///     instead, as calpipe did before it repaired.
    package init(label: String, zones: ZoneDatabase, fallbackZone: Zone, firstLine: Int = 1, limits: Limits = Limits(),
                workers: Int = 0, strict: Bool = false, handlers: Handlers) {
        self.label = label
        let builder = ICSEventBuilder(label: label, zones: zones, fallbackZone: fallbackZone, handlers: handlers, strict: strict)
        if workers > 0 {
            let parallel = ICSParallelBuilder(builder: builder, workers: workers)
            self.parallel = parallel
            scanner = ICSScanner(label: label, firstLine: firstLine, limits: limits, strict: strict, emit: { try parallel.perform($0) })
        } else {
            parallel = nil
            scanner = ICSScanner(label: label, firstLine: firstLine, limits: limits, strict: strict, emit: { try builder.perform($0) })
        }
        scanner.unchanged = handlers.unchanged
    }

    deinit { parallel?.stop() }

    /// Reads a whole buffer (feed + finish).
    package func parse(_ bytes: [UInt8]) throws {
        try feed(bytes)
        try finish()
    }

    /// Reads a whole string (feed + finish).
    package func parse(_ text: String) throws {
        try parse(Array(text.utf8))
    }

    package func feed(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBufferPointer { try feed($0) }
    }

    /// Feeds the next bytes of the input. Lines may be split anywhere, even inside a UTF-8 character.
    package func feed(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        do {
            try scanner.feed(bytes)
        } catch {
            parallel?.stop()
            throw error
        }
    }

    /// Leaves out unread the VEVENT whose bytes come next, when a quick pass over the same bytes found it whole
    /// (`ICSUnchangedRegions`): `lines` physical lines, components nested `depth` deep in it. True when the scanner
    /// stands where such an event would be read and `leaveOut`, given the line of its BEGIN, says it is unchanged
    /// (as `Handlers.unchanged` would for its text): the caller then skips those bytes. False: feed them as usual.
    package func skipEvent(lines: Int, depth: Int, leaveOut: (Int) -> Bool) throws -> Bool {
        do {
            return try scanner.skipEvent(lines: lines, depth: depth, leaveOut: leaveOut)
        } catch {
            parallel?.stop()
            throw error
        }
    }

    /// Ends the input: processes the last line and reports components that were never closed.
    package func finish() throws {
        do {
            try scanner.finish()
            try parallel?.finish()
        } catch {
            parallel?.stop()
            throw error
        }
    }
}
