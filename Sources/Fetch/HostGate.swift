import Foundation
import Pipeline

/// Politeness per host, for every HTTP client of one process that shares it (`HTTPFetcher.sibling`): one
/// request at a time to a host, requests to it spaced by the asking client's rate limit, and a stop for the
/// rest of the run once a host said its request limit is reached. Each pipeline's loader makes one
/// (`PipelineLoader.standard`), so its feeds and its forecast stage take turns at a host they both ask.
package final class HostGate: Sendable {
    private struct State {
        var hostLocks: [String: NSLock] = [:]
        var lastStart: [String: Double] = [:]
        var blocked: [String: String] = [:]
    }

    private let state = Locked(State())

    package init() {}

    /// Why requests to the host stopped, if they did.
    func blockReason(_ host: String) -> String? {
        state.withLock { $0.blocked[host] }
    }

    func block(_ host: String, reason: String) {
        state.withLock { $0.blocked[host] = reason }
    }

    /// Runs `body` holding the host's turn, after waiting until `minimumInterval` seconds have passed since the
    /// previous request to the host started (whichever client sent it).
    func withTurn<T>(_ host: String, minimumInterval: Double, _ body: () throws -> T) rethrows -> T {
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
