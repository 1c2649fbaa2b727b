import Foundation
import Pipeline

/// Stands between the scanner and the builder when events are made on worker threads (`ICSReader`'s
/// `workers`). The scanner (with `defersEventLines`) hands over each VEVENT with its property lines unparsed;
/// workers parse the lines and make the events, in jobs of `jobEvents`; this thread then hands the events on
/// in input order, so the handlers see exactly the calls the one-thread reader makes.
///
/// Exactness: a worker's builder works on a snapshot of the main builder's state (VTIMEZONEs, X-WR-TIMEZONE,
/// whether unknown zones still wait) taken when the job is sent. Commands that change that state are barriers:
/// the job being filled is sent, every job is handed on, then the main builder performs the command. An event
/// a worker cannot finish exactly as the main builder would (a rejection, a zone still to come, a VTIMEZONE
/// still to build) goes back to the main builder, which makes it again from the parsed lines. Rejections,
/// warnings and skips ride in the jobs between the events, in order.
///
/// Ownership: a frame belongs to this thread until its job is submitted, to one worker while the job is made,
/// then to this thread again (`OrderedWorkerPool` hands jobs over). `finish()` or `stop()` ends the workers.
final class ICSParallelBuilder {
    static let jobEvents = 128

    private let builder: ICSEventBuilder
    private let pool: OrderedWorkerPool<ICSJob, ICSJob>
    /// Jobs submitted and not yet handed on.
    private var inFlight = 0
    private var current = ICSJob()

    init(builder: ICSEventBuilder, workers: Int) {
        self.builder = builder
        let label = builder.label, zones = builder.zones, fallbackZone = builder.fallbackZone, strict = builder.strict
        // Each worker keeps a builder of its own (its caches last from job to job).
        pool = OrderedWorkerPool(name: "calpipe ics worker", workers: workers, bound: 2 * workers + 1) { index in
            let maker = ICSEventMaker(label: label, zones: zones, fallbackZone: fallbackZone, strict: strict)
            return { job in
                maker.make(&job)
                return job
            }
        }
    }

    deinit { pool.stop() }

    func perform(_ command: consuming ICSCommand) throws {
        switch command {
        case .event(let frame):
            current.items.append(.frame(frame))
            current.frames += 1
            if current.frames >= Self.jobEvents { try send() }
        case .reject, .repair, .warn, .skip, .latin1:
            current.items.append(.command(command))
        case .timezone, .calendarBegin, .calendarEnd, .flushPending, .calendarTimeZone, .calendarName, .calendarColor:
            try drain()
            try builder.perform(command)
        }
    }

    /// Hands on every event read so far and ends the workers.
    func finish() throws {
        try drain()
        pool.stop()
    }

    /// Ends the workers without handing on what they made (after an error).
    func stop() {
        pool.stop()
    }

    private func send() throws {
        var job = ICSJob()
        swap(&job, &current)
        guard !job.items.isEmpty else { return }
        if inFlight >= pool.bound { try handOnOldest() }
        job.snapshot = builder.snapshot
        pool.submit(job)
        inFlight += 1
    }

    private func drain() throws {
        try send()
        while inFlight > 0 { try handOnOldest() }
    }

    private func handOnOldest() throws {
        guard let job = try pool.take() else { throw CalpipeError("internal error: the ICS workers stopped") }
        inFlight -= 1
        let events = job.events
        var made = job.made.makeIterator()
        var warnings = job.warnings.makeIterator()
        for item in job.items {
            switch item {
            case .command(let command):
                try builder.perform(command)
            case .frame(let frame):
                guard made.next() == true, let event = events?.take() else {
                    try builder.finishEvent(frame, final: false)
                    continue
                }
                try builder.deliver(event, of: frame, messages: frame.hasWarnings ? warnings.next() ?? [] : [])
            }
        }
    }
}

/// A batch of scanner commands for a worker: the events to make, and the commands between them in order; the
/// worker adds what it made.
struct ICSJob: Sendable {
    enum Item: Sendable {
        case frame(ICSFrame)
        case command(ICSCommand)
    }

    var items: [Item] = []
    var frames = 0
    var snapshot: ICSEventBuilder.Snapshot?
    /// Per frame, in order: whether the worker made its event (else the main builder finishes it,
    /// `ICSEventBuilder.finishEvent`).
    var made: [Bool] = []
    /// The events the worker made, in order.
    var events: ICSMadeEvents?
    /// The warnings and repairs of each made event that gave some (`ICSFrame.hasWarnings`), in order.
    var warnings: [[ICSBuilderMessage]] = []
}

/// A worker's part: parses an event's deferred lines and makes the event with a builder of its own.
/// Made and used by its worker thread only.
final class ICSEventMaker {
    private let builder: ICSEventBuilder
    private let warnings: WarningList

    private final class WarningList {
        var items: [ICSBuilderMessage] = []
    }

    init(label: String, zones: ZoneDatabase, fallbackZone: Zone, strict: Bool) {
        let warnings = WarningList()
        self.warnings = warnings
        builder = ICSEventBuilder(label: label, zones: zones, fallbackZone: fallbackZone,
                                       handlers: ICSReader.Handlers(event: { _ in }, reject: { _, _ in },
                                                                    warn: { warnings.items.append(.warn($0)) },
                                                                    repair: { warnings.items.append(.repair($0)) }),
                                       strict: strict, isWorker: true)
    }

    func make(_ job: inout ICSJob) {
        guard job.frames > 0 else { return }
        if let snapshot = job.snapshot { builder.adopt(snapshot) }
        var made: [Bool] = []
        made.reserveCapacity(job.frames)
        let events = ICSMadeEvents(capacity: job.frames)
        for item in job.items {
            guard case .frame(let frame) = item else { continue }
            frame.parseDeferredLines(caches: builder.parameterCaches) { if frame.latin1Line == nil { frame.latin1Line = $0 } }
            guard frame.failure == nil, !(builder.strict && (!frame.repairs.isEmpty || frame.latin1Line != nil)) else {
                made.append(false)
                continue
            }
            warnings.items.removeAll(keepingCapacity: true)
            do {
                let event = try builder.makeEvent(frame, final: false)
                frame.textHash = event.rawTextHash
                events.append(consume event)
                made.append(true)
                if !warnings.items.isEmpty {
                    frame.hasWarnings = true
                    job.warnings.append(warnings.items)
                }
                // The main thread needs no more than the frame's latin-1 line: free here what was made here
                // (the text and line numbers go back with the frame to the thread that allocated them).
                frame.properties = []
                frame.attendees = []
            } catch {
                made.append(false)
            }
        }
        job.made = made
        job.events = events
    }
}
