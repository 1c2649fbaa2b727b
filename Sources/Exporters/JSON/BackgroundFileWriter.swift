import Foundation
import Pipeline

/// Writes chunks of bytes to a file on a thread of its own, so that making the next chunk overlaps with the
/// kernel copying the last one: the JSON sink's `days` document is merged and written only at commit, when
/// the rest of the pipeline is done and the machine's other core is free.
///
/// Ownership: between `init` and `finish()`/`cancel()` the file is used by the writer's thread only; both
/// wait for the thread to end. At most `depth` chunks wait, so memory stays bounded. A write error stops the
/// writing: later chunks are dropped, and `send` and `finish` rethrow it.
final class BackgroundFileWriter: @unchecked Sendable {
    // @unchecked: the file is not Sendable; it is used by the writer's thread only until finish()/cancel()
    // joined it. Every other field is guarded by `condition`.
    private let file: AtomicFile
    private let condition = NSCondition()
    private var queue: [[UInt8]] = []
    /// Written chunks, emptied, for `emptyBuffer()` to hand out again (no fresh 1 MiB allocation per chunk).
    private var spare: [[UInt8]] = []
    private var closed = false
    private var running = true
    private var failure: (any Error)?
    private let depth: Int

    init(file: AtomicFile, depth: Int = 2) {
        self.file = file
        self.depth = max(1, depth)
        let thread = Thread { [self] in loop() }
        thread.name = "calpipe-json-writer"
        thread.start()
    }

    /// An empty buffer to fill, with the capacity of an earlier chunk when one was written already.
    func emptyBuffer() -> [UInt8] {
        condition.lock()
        defer { condition.unlock() }
        return spare.popLast() ?? []
    }

    /// Queues `chunk`; waits while `depth` chunks wait. Throws the first write error.
    func send(_ chunk: [UInt8]) throws {
        condition.lock()
        defer { condition.unlock() }
        while failure == nil && queue.count >= depth { condition.wait() }
        if let failure { throw failure }
        queue.append(chunk)
        condition.broadcast()
    }

    /// Waits until every queued chunk is written and the thread ended; rethrows a write error.
    func finish() throws {
        close()
        condition.lock()
        defer { condition.unlock() }
        if let failure { throw failure }
    }

    /// Drops the chunks not yet written and waits for the thread to end.
    func cancel() {
        condition.lock()
        queue.removeAll()
        condition.unlock()
        close()
    }

    private func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while queue.isEmpty && !closed { condition.wait() }
            if queue.isEmpty {
                running = false
                condition.broadcast()
                condition.unlock()
                return
            }
            var chunk = queue.removeFirst()
            let failed = failure != nil
            condition.unlock()

            var error: (any Error)?
            if !failed {
                do { try file.write(bytes: chunk) } catch let e { error = e }
            }
            chunk.removeAll(keepingCapacity: true)

            condition.lock()
            if let error, failure == nil { failure = error }
            spare.append(chunk)
            condition.broadcast()
            condition.unlock()
        }
    }
}
