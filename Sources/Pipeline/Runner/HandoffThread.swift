import Foundation

/// A thread of its own that consumes the elements a producer sends it, in order, through a queue of at most
/// `depth` elements (the producer waits while it is full, so memory stays bounded). Used for the sinks
/// (`HandoffThread.sinkPump`) and for writing the JSON days document (`BackgroundFileWriter`).
///
/// The first error `consume` throws stops the consuming: the elements still queued are dropped, and `send`
/// and `finish` rethrow it. `finish()` waits until everything sent was consumed and the thread ended;
/// `cancel()` drops what is queued and waits for the thread to end. After either returns, whatever
/// `consume` used belongs to the caller again. A consumed element can be kept for reuse (`keepsSpares`):
/// `spare()` hands it back, emptied by `consume`. With `waitsForNext`, an element is consumed only once the next
/// one was sent (or the producer finished): by then the producer has returned from the call that made it and
/// dropped its own references, so `consume` holds the only one (the sinks' pump: `Sink.write(owned:)`).
package final class HandoffThread<Element>: @unchecked Sendable {
    // @unchecked: `consume` and the elements are used by the thread from start() until finish()/cancel()
    // joined it; every shared field below is guarded by `condition`.
    private let condition = NSCondition()
    private let depth: Int
    private let name: String
    private let keepsSpares: Bool
    private let waitsForNext: Bool
    private let consume: (inout Element) throws -> Void
    private var queue: [Element] = []
    private var spares: [Element] = []
    private var closed = false
    private var running = false
    private var failure: (any Error)?

    package init(name: String, depth: Int, keepsSpares: Bool = false, waitsForNext: Bool = false,
                 consume: @escaping (inout Element) throws -> Void) {
        self.name = name
        // Room for the element held back, so the producer can send the one that releases it.
        self.depth = max(waitsForNext ? 2 : 1, depth)
        self.keepsSpares = keepsSpares
        self.waitsForNext = waitsForNext
        self.consume = consume
    }

    package func start() {
        condition.lock()
        running = true
        condition.unlock()
        let thread = Thread { [self] in loop() }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Queues an element; waits while `depth` elements wait. Throws the first error of `consume`.
    package func send(_ element: consuming Element) throws {
        condition.lock()
        defer { condition.unlock() }
        while failure == nil && queue.count >= depth { condition.wait() }
        if let failure { throw failure }
        queue.append(element)
        condition.broadcast()
    }

    /// An element consumed earlier, for reuse (with `keepsSpares`), or nil.
    package func spare() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        return spares.popLast()
    }

    /// No more elements: waits until everything sent was consumed, then rethrows an error of `consume`.
    package func finish() throws {
        close()
        condition.lock()
        defer { condition.unlock() }
        if let failure { throw failure }
    }

    /// Drops what is queued and waits for the thread to end (after the element it is consuming).
    package func cancel() {
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

    private func next() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while queue.count < (waitsForNext ? 2 : 1) && !closed { condition.wait() }
        guard !queue.isEmpty else { return nil }
        // Taken from the front (so few that removeFirst is cheap); released as soon as it is consumed.
        let element = queue.removeFirst()
        condition.broadcast()
        return element
    }

    private func loop() {
        while var element = next() {
            do {
                try consume(&element)
            } catch {
                condition.lock()
                failure = error
                queue.removeAll()
                condition.broadcast()
                condition.unlock()
                break
            }
            if keepsSpares {
                condition.lock()
                spares.append(element)
                condition.unlock()
            }
        }
        condition.lock()
        running = false
        condition.broadcast()
        condition.unlock()
    }
}
