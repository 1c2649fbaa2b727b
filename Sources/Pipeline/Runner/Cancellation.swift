import Foundation

/// A run's stop flag and the temporary files it must not leave behind.
///
/// A signal handler sets the flag (`cancel`); the runner and long stages check it between units of work, so an
/// interrupted run stops at a safe point and every sink rolls back. The output files the run is writing
/// (`AtomicFile`s made with this cancellation) register their temporary names here, so that a run that must end
/// at once (a second signal) can remove them before it exits (`stopNow`).
///
/// The commit phase: after `beginCommit()`, an `AtomicFile` that commits only flushes and syncs its temporary
/// file and leaves the rename to `publish()`, which the runner calls once every sink has committed. So a signal
/// that arrives while the sinks write their last bytes still rolls every output back; the renames themselves
/// take microseconds and are not interrupted. A sink that commits in place (a database transaction) makes the
/// run irreversible (`markIrreversible()`): a signal after that point no longer stops the run, which then ends
/// with every output written (`cancelledAfterCommit`).
public final class Cancellation: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    private let lock = NSLock()
    private var reason: String?
    private var phase = Phase.running
    /// Temporary files of open `AtomicFile`s, by path.
    private var temporaryFiles = Set<String>()
    /// Renames `AtomicFile.commit()` left for `publish()`, in commit order.
    private var pendingRenames: [PendingRename] = []

    /// A complete, synced temporary file waiting to be renamed over its target; its descriptor stays open (and
    /// locked) until then, so no other run takes it for a stale file.
    private struct PendingRename {
        var temporary: String
        var target: String
        var label: String
        var descriptor: Int32
    }

    private enum Phase {
        /// Sources, stages and sinks at work: a signal stops the run.
        case running
        /// Sinks commit; files wait for `publish()`. A signal still stops the run.
        case committing
        /// Something was made visible (a transaction committed, or the files renamed): the run goes to its end.
        case irreversible
    }

    public init() {}

    public func cancel(reason: String) {
        lock.lock()
        if self.reason == nil { self.reason = reason }
        lock.unlock()
    }

    /// The signal (or other cause) that asked the run to stop, if any.
    public var cancelledReason: String? {
        lock.lock()
        defer { lock.unlock() }
        return reason
    }

    /// Why the run must stop now; nil when it goes on (not cancelled, or past the point of no return).
    public var stopReason: String? {
        lock.lock()
        defer { lock.unlock() }
        return phase == .irreversible ? nil : reason
    }

    /// True when the run was asked to stop after it had made its outputs visible: it finished anyway.
    public var cancelledAfterCommit: Bool {
        lock.lock()
        defer { lock.unlock() }
        return reason != nil && phase == .irreversible
    }

    // MARK: Temporary files

    func register(temporaryFile path: String) {
        lock.lock()
        temporaryFiles.insert(path)
        lock.unlock()
    }

    func unregister(temporaryFile path: String) {
        lock.lock()
        temporaryFiles.remove(path)
        lock.unlock()
    }

    /// How many temporary files are registered (open `AtomicFile`s and renames waiting for `publish()`).
    public var temporaryFileCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return temporaryFiles.count
    }

    // MARK: Commit phase

    /// A run starts (a context may serve more than one run in tests): its commit phase is still ahead.
    public func beginRun() {
        lock.lock()
        phase = .running
        pendingRenames = []
        lock.unlock()
    }

    /// Starts the commit phase: from now on, `AtomicFile.commit()` leaves its rename to `publish()`.
    public func beginCommit() {
        lock.lock()
        if phase == .running { phase = .committing }
        lock.unlock()
    }

    /// A sink made something visible that cannot be taken back: the run goes on to its end.
    public func markIrreversible() {
        lock.lock()
        phase = .irreversible
        lock.unlock()
    }

    /// Called by `AtomicFile.commit()` with its synced temporary file. Returns false when the rename must
    /// happen now (not in the commit phase).
    func deferRename(temporary: String, target: String, label: String, descriptor: Int32) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard phase == .committing else { return false }
        pendingRenames.append(PendingRename(temporary: temporary, target: target, label: label, descriptor: descriptor))
        return true
    }

    /// Renames every file committed during the commit phase over its target, unless the run was cancelled
    /// before its point of no return (then nothing is renamed, the temporary files are removed and
    /// `CalpipeError.interrupted` is thrown). Holds the lock throughout, so `stopNow()` waits for the renames.
    public func publish() throws {
        lock.lock()
        defer { lock.unlock() }
        if let reason, phase != .irreversible {
            discardLocked()
            throw CalpipeError.interrupted(reason)
        }
        phase = .irreversible
        let renames = pendingRenames
        pendingRenames = []
        for (index, rename) in renames.enumerated() {
            temporaryFiles.remove(rename.temporary)
            if Foundation.rename(rename.temporary, rename.target) != 0 {
                let problem = FileProblem.writeProblem(path: rename.target, label: rename.label, errorNumber: errno)
                for rest in renames[index...] {
                    unlink(rest.temporary)
                    close(rest.descriptor)
                    temporaryFiles.remove(rest.temporary)
                }
                throw CalpipeError("\(rename.label): cannot write: \(problem)")
            }
            close(rename.descriptor)
            FileProblem.syncFolder(of: rename.target)
        }
    }

    /// Removes the temporary files of renames that will not happen (the run failed in its commit phase).
    public func discardPending() {
        lock.lock()
        discardLocked()
        lock.unlock()
    }

    private func discardLocked() {
        for rename in pendingRenames {
            unlink(rename.temporary)
            close(rename.descriptor)
            temporaryFiles.remove(rename.temporary)
        }
        pendingRenames = []
    }

    /// For a run that must end at once: removes every registered temporary file (so nothing is left behind
    /// by an exit that skips the usual clean-up) and tells whether the outputs had already been made visible.
    /// Waits while `publish()` renames. Afterwards no rename happens any more.
    @discardableResult
    public func stopNow() -> (removed: Int, published: Bool) {
        lock.lock()
        defer { lock.unlock() }
        let published = phase == .irreversible
        var removed = 0
        for path in temporaryFiles where unlink(path) == 0 { removed += 1 }
        temporaryFiles = []
        pendingRenames = []
        if reason == nil { reason = "a forced stop" }
        return (removed, published)
    }
}
