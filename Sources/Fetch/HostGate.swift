import Foundation
import Pipeline

/// Politeness per host: one request at a time, at most R requests per second, and a stop for the rest of
/// the run once a host said its request limit is reached.
final class HostGate: Sendable {
    private struct State {
        var hostLocks: [String: NSLock] = [:]
        var lastStart: [String: Double] = [:]
        var blocked: [String: String] = [:]
    }

    private let state = Locked(State())
    private let minimumInterval: Double

    init(requestsPerSecond: Double) {
        minimumInterval = requestsPerSecond > 0 ? 1 / requestsPerSecond : 0
    }

    /// Why requests to the host stopped, if they did.
    func blockReason(_ host: String) -> String? {
        state.withLock { $0.blocked[host] }
    }

    func block(_ host: String, reason: String) {
        state.withLock { $0.blocked[host] = reason }
    }

    /// Runs `body` holding the host's turn, after waiting out the rate limit.
    func withTurn<T>(_ host: String, _ body: () throws -> T) rethrows -> T {
        let clock = { ProcessInfo.processInfo.systemUptime }
        let hostLock = state.withLock { state -> NSLock in
            if let existing = state.hostLocks[host] { return existing }
            let created = NSLock()
            state.hostLocks[host] = created
            return created
        }
        hostLock.lock()
        defer { hostLock.unlock() }
        if let previous = state.withLock({ $0.lastStart[host] }) {
            let wait = previous + minimumInterval - clock()
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
        }
        state.withLock { $0.lastStart[host] = clock() }
        return try body()
    }
}
