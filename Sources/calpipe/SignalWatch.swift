import Foundation
import Pipeline

/// Turns SIGINT and SIGTERM into a cancellation the runner sees between batches, so sinks roll back
/// (temporary files removed, transactions rolled back) instead of dying mid-write; the run then exits with
/// 130 (SIGINT) or 143 (SIGTERM).
///
/// A second signal, or a run that has not stopped `grace` seconds after the first (blocked reading standard
/// input or waiting for a server or a database lock), ends the process at once: the run's temporary files are
/// removed first (`Cancellation.stopNow`), and an open database transaction is rolled back by SQLite itself
/// when the database is next opened.
///
/// How: the signal handler only writes the signal's number into a pipe (all a handler may safely do); a thread
/// of the watch reads the pipe and acts. The handler is installed before `init` returns, so no signal sent
/// after that is lost.
final class SignalWatch: Sendable {
    let cancellation: Cancellation
    private let grace: Double
    /// Whether the process is being stopped at once (or the run ended), and whether the run ended (`stop()`).
    private let state = Locked((stopping: false, stopped: false))
    private let readEnd: Int32
    private let writeEnd: Int32

    /// The signals watched, with their names.
    static let signals: [(number: Int32, name: String)] = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")]

    init(cancellation: Cancellation = Cancellation(), grace: Double = 3) {
        self.cancellation = cancellation
        self.grace = grace
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) != 0 { ends = [-1, -1] }
        readEnd = ends[0]
        writeEnd = ends[1]
        guard readEnd >= 0 else { return }
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
        signalPipe = writeEnd
        let thread = Thread { [self] in watch() }
        thread.name = "calpipe-signals"
        thread.start()
        for (number, _) in Self.signals { signal(number, forwardSignal) }
    }

    /// Reads signals from the pipe: the first cancels the run, the next one (or the end of the grace time)
    /// ends the process.
    private func watch() {
        defer { close(readEnd) }
        var byte: UInt8 = 0
        var first: String?
        while true {
            if let first {
                var poller = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&poller, 1, Int32(grace * 1000))
                if ready == 0 {
                    stopNow(first, why: "and the run did not stop within \(Int(grace)) s")
                    return
                }
                if ready < 0 { if errno == EINTR { continue }; return }
            }
            let n = read(readEnd, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            guard n == 1 else { return }  // the watch was stopped
            let name = Self.signals.first { $0.number == Int32(byte) }?.name ?? "signal \(byte)"
            if first != nil {
                stopNow(name, why: "again")
                return
            }
            first = name
            cancellation.cancel(reason: name)
        }
    }

    /// Ends the process now, without leaving temporary files.
    private func stopNow(_ name: String, why: String) {
        let first = state.withLock { s in
            defer { s.stopping = true }
            return !s.stopping
        }
        guard first else { return }
        let (_, published) = cancellation.stopNow()
        let outcome = published ? "the outputs had been written" : "nothing was written"
        Terminal.error("calpipe: interrupted by \(name) \(why): stopped at once; \(outcome)")
        _exit(ExitStatus.interrupted(by: name))
    }

    /// The run ended: signals kill the process again (the default), and no forced stop happens any more.
    func stop() {
        let wasStopped = state.withLock { s in
            defer { s = (stopping: true, stopped: true) }
            return s.stopped
        }
        guard !wasStopped else { return }
        for (number, _) in Self.signals { signal(number, SIG_DFL) }
        guard readEnd >= 0 else { return }
        signalPipe = -1
        close(writeEnd)  // the watching thread reads the end of the pipe and returns
    }
}

/// Where the signal handler writes: the pipe of the current `SignalWatch` (signals belong to the process, so
/// this is the one process-wide value of the tool). Set while a watch is active, -1 otherwise.
nonisolated(unsafe) private var signalPipe: Int32 = -1

/// The signal handler: writes the signal's number into the pipe. Only async-signal-safe calls here.
private func forwardSignal(_ number: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: number)
    if signalPipe >= 0 { _ = write(signalPipe, &byte, 1) }
    errno = saved
}
