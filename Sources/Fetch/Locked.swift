import Foundation

/// A value behind a lock: the one place in this module where thread safety rests on a lock rather than on
/// the compiler, so the types that share state across threads (`HostGate`, the transport's task states) can
/// be checked `Sendable`.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
