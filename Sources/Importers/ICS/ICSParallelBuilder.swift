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
/// Ownership: a frame belongs to this thread until its job is sent, to one worker until the job is done, then
/// to this thread again (the pool's lock orders the hand-overs). `finish()` or `stop()` ends the workers.
final class ICSParallelBuilder {
    static let jobEvents = 128

    private let builder: ICSEventBuilder
    private let pool: ICSWorkerPool
    /// Sent jobs not yet handed on, oldest first.
    private var inFlight = ICSJobQueue()
    private var current = ICSJob()
    private let maxInFlight: Int
    /// The worker that made the job handed on last.
    private var lastWorker = -1

    init(builder: ICSEventBuilder, workers: Int) {
        self.builder = builder
        maxInFlight = 2 * workers + 1
        let label = builder.label, zones = builder.zones, fallbackZone = builder.fallbackZone, strict = builder.strict
        pool = ICSWorkerPool(workers: workers) { ICSEventMaker(label: label, zones: zones, fallbackZone: fallbackZone, strict: strict) }
    }

    deinit { pool.stop() }

    func perform(_ command: consuming ICSCommand) throws {
        switch command {
        case .event(let frame):
            current.items.append(.frame(frame))
            current.frames += 1
            if current.frames >= Self.jobEvents { try send() }
        case .reject, .warn, .skip, .latin1:
            current.items.append(.command(command))
        case .timezone, .calendarBegin, .calendarEnd, .flushPending, .calendarTimeZone:
            try drain()
            try builder.perform(command)
        }
    }

    /// Hands on every event read so far and ends the workers.
    func finish() throws {
        try drain()
        pool.stop()
    }

    /// Has a worker free events this thread is done with: the one that made the events handed on last
    /// (a batch of the `ics` source holds about one job's events).
    func dispose(_ events: consuming [Event]) {
        pool.dispose(events, worker: lastWorker)
    }

    /// Ends the workers without handing on what they made (after an error).
    func stop() {
        pool.stop()
    }

    private func send() throws {
        let job = current
        current = ICSJob()
        guard !job.items.isEmpty else { return }
        if inFlight.count >= maxInFlight { try handOnOldest() }
        job.snapshot = builder.snapshot
        if job.frames == 0 { job.done = true } else { pool.submit(job) }
        inFlight.append(job)
    }

    private func drain() throws {
        try send()
        while !inFlight.isEmpty { try handOnOldest() }
    }

    private func handOnOldest() throws {
        guard let job = inFlight.popFirst() else { return }
        pool.wait(for: job)
        if job.frames > 0 { lastWorker = job.worker }
        let events = job.events
        var made = job.made.makeIterator()
        var warnings = job.warnings.makeIterator()
        for item in job.items {
            switch item {
            case .command(let command):
                try builder.perform(command)
            case .frame(let frame):
                guard made.next() == true, let event = events.take() else {
                    try builder.finishEvent(frame, final: false)
                    continue
                }
                try builder.deliver(event, of: frame, messages: frame.hasWarnings ? warnings.next() ?? [] : [])
            }
        }
    }
}

/// A batch of scanner commands for a worker: the events to make, and the commands between them in order.
final class ICSJob: @unchecked Sendable {
    enum Item {
        case frame(ICSFrame)
        case command(ICSCommand)
    }


    var items: [Item] = []
    var frames = 0
    var snapshot: ICSEventBuilder.Snapshot?
    // Written by the worker before `done`. Per frame, in order: whether the worker made its event (else the
    // main builder finishes it, `ICSEventBuilder.finishEvent`).
    var made: [Bool] = []
    /// The events the worker made, in order.
    var events = ICSMadeEvents(capacity: 0)
    /// The warnings and repairs of each made event that gave some (`ICSFrame.hasWarnings`), in order.
    var warnings: [[ICSBuilderMessage]] = []
    // Guarded by the pool's lock.
    var done = false
    /// The worker that made the events.
    var worker = -1
}

/// A worker's part: parses an event's deferred lines and makes the event with a builder of its own.
/// Made on the reading thread, then used by its worker thread only.
final class ICSEventMaker: @unchecked Sendable {
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

    func make(_ job: ICSJob) {
        if let snapshot = job.snapshot { builder.adopt(snapshot) }
        var made: [Bool] = []
        made.reserveCapacity(job.frames)
        let events = ICSMadeEvents(capacity: job.frames)
        for item in job.items {
            guard case .frame(let frame) = item else { continue }
            frame.parseDeferredLines(caches: builder.parameterCaches) { if frame.latin1Line == nil { frame.latin1Line = $0 } }
            guard frame.failure == nil, !(builder.strict && !frame.repairs.isEmpty) else {
                made.append(false)
                continue
            }
            warnings.items.removeAll(keepingCapacity: true)
            do {
                events.append(try builder.makeEvent(frame, final: false))
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
