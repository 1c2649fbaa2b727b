import Foundation
import Pipeline

/// Writes chunks of bytes to a file on a thread of its own, so that making the next chunk overlaps with the
/// kernel copying the last one: the JSON sink's `days` document is merged and written only at commit, when
/// the rest of the pipeline is done and the machine's other core is free.
///
/// Ownership: between `init` and `finish()`/`cancel()` the file is used by the writer's thread only; both
/// wait for the thread to end. At most `depth` chunks wait, so memory stays bounded. A write error stops the
/// writing: later chunks are dropped, and `send` and `finish` rethrow it.
final class BackgroundFileWriter: Sendable {
    /// The file is captured by the thread's write closure: used by the writer's thread only until finish()/cancel()
    /// joined it (`HandoffThread`).
    private let thread: HandoffThread<[UInt8]>

    init(file: AtomicFile, depth: Int = 2) {
        // Written chunks come back emptied, for `emptyBuffer()` (no fresh 1 MiB allocation per chunk).
        thread = HandoffThread(name: "calpipe-json-writer", depth: depth, keepsSpares: true) { chunk in
            try file.write(bytes: chunk)
            chunk.removeAll(keepingCapacity: true)
        }
        thread.start()
    }

    /// An empty buffer to fill, with the capacity of an earlier chunk when one was written already.
    func emptyBuffer() -> [UInt8] {
        thread.spare() ?? []
    }

    /// Queues `chunk`; waits while `depth` chunks wait. Throws the first write error.
    func send(_ chunk: [UInt8]) throws {
        try thread.send(chunk)
    }

    /// Waits until every queued chunk is written and the thread ended; rethrows a write error.
    func finish() throws {
        try thread.finish()
    }

    /// Drops the chunks not yet written and waits for the thread to end.
    func cancel() {
        thread.cancel()
    }
}
