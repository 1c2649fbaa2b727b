import Foundation

/// Politeness per host: one request at a time, at most R requests per second, and a stop for the rest of
/// the run once a host said its request limit is reached.
final class HostGate: @unchecked Sendable {
    private let lock = NSLock()
    private var hostLocks: [String: NSLock] = [:]
    private var lastStart: [String: Double] = [:]
    private var blocked: [String: String] = [:]
    private let minimumInterval: Double

    init(requestsPerSecond: Double) {
        minimumInterval = requestsPerSecond > 0 ? 1 / requestsPerSecond : 0
    }

    /// Why requests to the host stopped, if they did.
    func blockReason(_ host: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        return blocked[host]
    }

    func block(_ host: String, reason: String) {
        lock.lock()
        blocked[host] = reason
        lock.unlock()
    }

    /// Runs `body` holding the host's turn, after waiting out the rate limit.
    func withTurn<T>(_ host: String, _ body: () throws -> T) rethrows -> T {
        let clock = { ProcessInfo.processInfo.systemUptime }
        lock.lock()
        let hostLock: NSLock
        if let existing = hostLocks[host] { hostLock = existing } else { hostLock = NSLock(); hostLocks[host] = hostLock }
        lock.unlock()
        hostLock.lock()
        defer { hostLock.unlock() }
        lock.lock()
        let previous = lastStart[host]
        lock.unlock()
        if let previous {
            let wait = previous + minimumInterval - clock()
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
        }
        lock.lock()
        lastStart[host] = clock()
        lock.unlock()
        return try body()
    }
}
