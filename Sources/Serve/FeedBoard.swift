import Foundation
import Pipeline

/// What each pipeline's last runs left: its published files (in memory, whole) and how fresh they are.
/// Runs write it, requests read it; one lock, held only to swap values.
final class FeedBoard: Sendable {
    struct Status: Sendable {
        var runs = 0
        var failures = 0
        var lastSuccess: Date?
        /// Why the last run failed; nil when it succeeded.
        var lastError: String?
        /// When the served outputs were last made from current upstream data (a run that used a stale cached copy
        /// of a feed moves it back by that copy's age). nil before any output is known.
        var freshAt: Date?
        /// Per upstream feed of the last successful run: the age of the copy it used (0: downloaded or revalidated).
        var upstreamAges: [(label: String, seconds: Double)] = []

        /// Seconds the served data lags behind its upstreams, when it does: the last run failed or used a stale copy.
        func staleAge(now: Date) -> Int? {
            guard let freshAt else { return nil }
            let behind = lastError != nil || (lastSuccess.map { freshAt < $0 } ?? true)
            return behind ? max(0, Int(now.timeIntervalSince(freshAt).rounded(.down))) : nil
        }
    }

    private let state = Locked((files: [String: ServedFile](), status: [String: Status]()))

    func file(_ route: String) -> ServedFile? { state.withLock { $0.files[route] } }

    func status(_ pipeline: String) -> Status { state.withLock { $0.status[pipeline] ?? Status() } }

    /// `Status.staleAge` without copying the status out (asked by every feed request).
    func staleAge(_ pipeline: String, now: Date) -> Int? { state.withLock { $0.status[pipeline]?.staleAge(now: now) } }

    func allStatus() -> [String: Status] { state.withLock { $0.status } }

    /// Publishes a file's bytes at `route`; the same bytes as before keep their ETag and Last-Modified.
    func publish(_ file: ServedFile, at route: String) {
        state.withLock { s in
            if !file.sameContent(as: s.files[route]) { s.files[route] = file }
        }
    }

    func update(_ pipeline: String, _ change: (inout Status) -> Void) {
        state.withLock { change(&$0.status[pipeline, default: Status()]) }
    }
}
