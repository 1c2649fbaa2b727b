import Dispatch
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
final class SignalWatch: @unchecked Sendable {
    // @unchecked: `stopping` is guarded by `lock`; `sources` is used by the thread that made the watch only.
    private var sources: [DispatchSourceSignal] = []
    private let cancellation: Cancellation
    private let lock = NSLock()
    private var stopping = false

    /// The signals watched, with their exit codes (128 + the signal's number, as shells report them).
    static let signals: [(number: Int32, name: String)] = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")]

    /// The exit code for a run stopped by `reason` (a signal's name): 130 for SIGINT, 143 for SIGTERM.
    static func exitCode(for reason: String) -> Int32 {
        128 + (signals.first { $0.name == reason }?.number ?? SIGTERM)
    }

    init(cancellation: Cancellation, grace: Double = 3) {
        self.cancellation = cancellation
        for (number, name) in Self.signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                if cancellation.cancelledReason != nil {
                    stopNow(name, why: "again")
                    return
                }
                cancellation.cancel(reason: name)
                DispatchQueue.global().asyncAfter(deadline: .now() + grace) { [self] in
                    stopNow(name, why: "and the run did not stop within \(Int(grace)) s")
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Ends the process now, without leaving temporary files.
    private func stopNow(_ name: String, why: String) {
        lock.lock()
        if stopping { lock.unlock(); return }
        stopping = true
        lock.unlock()
        let (_, published) = cancellation.stopNow()
        let outcome = published ? "the outputs had been written" : "nothing was written"
        Terminal.error("calpipe: interrupted by \(name) \(why): stopped at once; \(outcome)")
        _exit(Self.exitCode(for: name))
    }

    /// The run ended: signals kill the process again (the default), and no forced stop is pending.
    func stop() {
        lock.lock()
        stopping = true
        lock.unlock()
        for source in sources { source.cancel() }
        sources.removeAll()
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
