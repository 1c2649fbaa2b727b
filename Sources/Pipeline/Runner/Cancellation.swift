import Foundation

/// A flag a signal handler sets and the runner checks between batches, so an interrupted run stops at a
/// safe point and every sink rolls back instead of leaving half-written output.
public final class Cancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var reason: String?

    public init() {}

    public func cancel(reason: String) {
        lock.lock()
        if self.reason == nil { self.reason = reason }
        lock.unlock()
    }

    public var cancelledReason: String? {
        lock.lock()
        defer { lock.unlock() }
        return reason
    }
}
