import Foundation
import Pipeline

/// Reads one iCalendar input on two threads: a worker thread reads the bytes and runs the scanner
/// (`ICSScanner`: line assembly, content lines, components), the calling thread runs the builder
/// (`ICSEventBuilder`: events, zones) and the handlers, and with them everything the handlers do downstream.
///
/// The scanner's commands reach the builder in input order through a small bounded queue, so the handlers see
/// exactly the calls `ICSReader` makes on one thread (same events, rejections with the same lines, warnings in
/// the same order), and memory stays bounded: at most `queueSlots` blocks of about `blockCommands` commands wait.
/// An error of the input (unreadable, not iCalendar) comes out after the commands that came before it; an error
/// thrown by a handler (a failing sink, an interrupt) stops the worker and comes out at once.
enum ICSPipelinedReader {
    /// Commands per block handed from the worker to the caller (a block is one lock round trip).
    static let blockCommands = 64
    /// Blocks that may wait in the queue before the worker blocks.
    static let queueSlots = 8

    static func read(_ chunks: ChunkReader, label: String, zones: ZoneDatabase, fallbackZone: Zone,
                     limits: ICSReader.Limits = ICSReader.Limits(), handlers: ICSReader.Handlers) throws {
        let queue = ICSCommandQueue(slots: queueSlots)
        let work = Worker(chunks: chunks, label: label, limits: limits, queue: queue)
        let thread = Thread { work.run() }
        thread.name = "calpipe ics scanner"
        thread.stackSize = 8 << 20
        thread.start()

        let builder = ICSEventBuilder(label: label, zones: zones, fallbackZone: fallbackZone, handlers: handlers)
        do {
            // A performed block goes back to the worker to be freed there while the worker is ahead (blocks wait
            // here); else this thread, which then has time to spare, frees it. Likewise the worker makes the
            // events' texts only while this thread is behind (`ICSScanner.SplitHint`). Results are the same.
            var performed: [ICSCommand] = []
            while let block = try queue.pop(returning: &performed) {
                for command in block { try builder.perform(command) }
                performed = block
            }
        } catch {
            // The worker stops at its next hand-over; it touches nothing of this thread's, so it is not waited
            // for (it may be blocked reading a slow standard input).
            queue.cancel()
            throw error
        }
        queue.waitUntilWorkerDone()
    }

    /// The worker thread's side: reads, scans, hands blocks of commands over.
    private final class Worker: @unchecked Sendable {
        let chunks: ChunkReader
        let label: String
        let limits: ICSReader.Limits
        let queue: ICSCommandQueue

        init(chunks: ChunkReader, label: String, limits: ICSReader.Limits, queue: ICSCommandQueue) {
            self.chunks = chunks
            self.label = label
            self.limits = limits
            self.queue = queue
        }

        func run() {
            var block: [ICSCommand] = []
            block.reserveCapacity(ICSPipelinedReader.blockCommands)
            let queue = self.queue
            let hint = ICSScanner.SplitHint()
            let scanner = ICSScanner(label: label, firstLine: 1, limits: limits, hint: hint, emit: { command in
                block.append(command)
                if block.count >= ICSPipelinedReader.blockCommands {
                    let waiting = try queue.push(block)
                    block.removeAll(keepingCapacity: true)
                    // The builder is behind (blocks wait): this thread has time to make the events' texts.
                    hint.makesSourceText = waiting >= ICSPipelinedReader.queueSlots / 2
                }
            })
            var failure: (any Error)?
            do {
                // Read straight into one buffer that the scanner reads from (no copy per chunk).
                try chunks.forEachChunk { try scanner.feed($0) }
                try scanner.finish()
            } catch {
                failure = error
            }
            if !block.isEmpty { _ = try? queue.push(block) }
            queue.close(failure: failure)
        }
    }
}

/// The bounded, ordered hand-over between the scanner thread and the builder thread.
final class ICSCommandQueue: @unchecked Sendable {
    /// Thrown to the worker when the consumer gave up (a handler failed): it stops scanning.
    struct Cancelled: Error {}

    private let condition = NSCondition()
    private let slots: Int
    private var blocks: [[ICSCommand]] = []
    /// Blocks the consumer performed, for the worker to free.
    private var returned: [[ICSCommand]] = []
    private var head = 0
    private var closed = false
    private var cancelled = false
    private var workerDone = false
    private var failure: (any Error)?

    init(slots: Int) {
        self.slots = slots
    }

    /// Worker: waits for room, then appends a block. Throws `Cancelled` once the consumer gave up.
    /// Frees the blocks the consumer gave back (on this thread, outside the lock). Returns how many blocks wait.
    @discardableResult
    func push(_ block: [ICSCommand]) throws -> Int {
        var garbage: [[ICSCommand]] = []
        condition.lock()
        while blocks.count - head >= slots && !cancelled { condition.wait() }
        if cancelled {
            condition.unlock()
            throw Cancelled()
        }
        if head >= 4 * slots {
            blocks.removeFirst(head)
            head = 0
        }
        blocks.append(block)
        swap(&garbage, &returned)
        let waiting = blocks.count - head
        condition.broadcast()
        condition.unlock()
        garbage.removeAll()
        return waiting
    }

    /// Worker: no more blocks; `failure` comes out of `pop` after the blocks already pushed.
    func close(failure: (any Error)?) {
        condition.lock()
        closed = true
        workerDone = true
        self.failure = failure
        condition.broadcast()
        condition.unlock()
    }

    /// Consumer: the next block, or nil at the end; rethrows the worker's error at the end. `performed` (the
    /// previous block) is handed to the worker to free while it still runs.
    func pop(returning performed: inout [ICSCommand]) throws -> [ICSCommand]? {
        condition.lock()
        defer { condition.unlock() }
        // Only while the worker is ahead (blocks wait for this thread): else this thread has the time to free.
        if !performed.isEmpty && !workerDone && blocks.count - head >= slots / 2 {
            returned.append(performed)
            performed = []
        }
        while head == blocks.count && !closed { condition.wait() }
        if head < blocks.count {
            let block = blocks[head]
            blocks[head] = []
            head += 1
            condition.broadcast()
            return block
        }
        if let failure, !(failure is Cancelled) { throw failure }
        return nil
    }

    /// Consumer: stop the worker (its next push throws) and drop what is queued.
    func cancel() {
        condition.lock()
        cancelled = true
        blocks = []
        head = 0
        condition.broadcast()
        condition.unlock()
    }

    func waitUntilWorkerDone() {
        condition.lock()
        while !workerDone { condition.wait() }
        condition.unlock()
    }
}
