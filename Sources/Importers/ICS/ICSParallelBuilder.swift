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
    static let jobEvents = 256

    private let builder: ICSEventBuilder
    private let pool: ICSWorkerPool
    /// Sent jobs not yet handed on, oldest first.
    private var inFlight: [ICSJob] = []
    private var inFlightHead = 0
    private var current = ICSJob()
    private let maxInFlight: Int

    init(builder: ICSEventBuilder, workers: Int) {
        self.builder = builder
        maxInFlight = 2 * workers + 1
        let label = builder.label, zones = builder.zones, fallbackZone = builder.fallbackZone
        pool = ICSWorkerPool(workers: workers) { ICSEventMaker(label: label, zones: zones, fallbackZone: fallbackZone) }
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

    /// Ends the workers without handing on what they made (after an error).
    func stop() {
        pool.stop()
    }

    private func send() throws {
        let job = current
        current = ICSJob()
        guard !job.items.isEmpty else { return }
        if inFlight.count - inFlightHead >= maxInFlight { try handOnOldest() }
        job.snapshot = builder.snapshot
        if job.frames == 0 { job.done = true } else { pool.submit(job) }
        inFlight.append(job)
    }

    private func drain() throws {
        try send()
        while inFlightHead < inFlight.count { try handOnOldest() }
        inFlight.removeAll(keepingCapacity: true)
        inFlightHead = 0
    }

    private func handOnOldest() throws {
        let job = inFlight[inFlightHead]
        inFlight[inFlightHead] = ICSJob.none
        inFlightHead += 1
        if inFlightHead >= 64 {
            inFlight.removeFirst(inFlightHead)
            inFlightHead = 0
        }
        pool.wait(for: job)
        var outcomes = job.outcomes.makeIterator()
        for item in job.items {
            switch item {
            case .command(let command):
                try builder.perform(command)
            case .frame(let frame):
                switch outcomes.next() {
                case .made(let event, let warnings)?:
                    try builder.deliver(event, of: frame, warnings: warnings)
                case .toMain?, nil:
                    try builder.finishEvent(frame, final: false)
                }
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

    enum Outcome {
        /// Made by the worker, with the warnings it gave (in order).
        case made(Event, warnings: [String])
        /// For the main builder to finish (`ICSEventBuilder.finishEvent`).
        case toMain
    }

    static let none = ICSJob()

    var items: [Item] = []
    var frames = 0
    var snapshot: ICSEventBuilder.Snapshot?
    /// One per frame, in order; written by the worker before `done`.
    var outcomes: [Outcome] = []
    /// Guarded by the pool's lock.
    var done = false
}

/// A worker's part: parses an event's deferred lines and makes the event with a builder of its own.
/// Made on the reading thread, then used by its worker thread only.
final class ICSEventMaker: @unchecked Sendable {
    private let builder: ICSEventBuilder
    private let warnings: WarningList

    private final class WarningList {
        var items: [String] = []
    }

    init(label: String, zones: ZoneDatabase, fallbackZone: Zone) {
        let warnings = WarningList()
        self.warnings = warnings
        builder = ICSEventBuilder(label: label, zones: zones, fallbackZone: fallbackZone,
                                       handlers: ICSReader.Handlers(event: { _ in }, reject: { _, _ in },
                                                                    warn: { warnings.items.append($0) }),
                                       isWorker: true)
    }

    func make(_ job: ICSJob) {
        if let snapshot = job.snapshot { builder.adopt(snapshot) }
        var outcomes: [ICSJob.Outcome] = []
        outcomes.reserveCapacity(job.frames)
        for item in job.items {
            guard case .frame(let frame) = item else { continue }
            frame.parseDeferredLines(caches: builder.parameterCaches) { if frame.latin1Line == nil { frame.latin1Line = $0 } }
            guard frame.failure == nil else {
                outcomes.append(.toMain)
                continue
            }
            warnings.items.removeAll(keepingCapacity: true)
            do {
                let event = try builder.makeEvent(frame, final: false)
                outcomes.append(.made(event, warnings: warnings.items))
                // The main thread needs no more than the frame's latin-1 line: free the rest here.
                frame.properties = []
                frame.attendees = []
                frame.text = []
                frame.children = []
            } catch {
                outcomes.append(.toMain)
            }
        }
        job.outcomes = outcomes
    }
}
