import Foundation

/// A value behind a lock: the one lock box of calpipe, the place where thread safety rests on a lock rather
/// than on the compiler, so the types that share state across threads (`HostGate`, the HTTP transport's task
/// states, the CLI's log printer) can be checked `Sendable`.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
