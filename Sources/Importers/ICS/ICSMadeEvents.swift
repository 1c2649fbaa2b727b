import Pipeline

/// The events a worker made for one job, handed to the reading thread without a copy: the worker moves each
/// event in, the reading thread moves them out in the same order (`take`). Copying an event out of an array
/// would retain each of its strings and arrays on the reading thread while their reference counts still sit
/// in the worker core's cache, and that cross-core traffic cost more than making the events.
final class ICSMadeEvents: @unchecked Sendable {
    // @unchecked: filled by one worker, then (after the pool's lock hands the job over) emptied by the reading
    // thread; never used by two threads at once.
    private var storage: UnsafeMutablePointer<Event>
    private var capacity: Int
    private(set) var count = 0
    private var taken = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        storage = .allocate(capacity: self.capacity)
    }

    deinit {
        (storage + taken).deinitialize(count: count - taken)
        storage.deallocate()
    }

    func append(_ event: consuming Event) {
        if count == capacity {
            let bigger = UnsafeMutablePointer<Event>.allocate(capacity: capacity * 2)
            bigger.moveInitialize(from: storage, count: count)
            storage.deallocate()
            storage = bigger
            capacity *= 2
        }
        (storage + count).initialize(to: event)
        count += 1
    }

    /// The next event, in the order they were appended.
    func take() -> Event? {
        guard taken < count else { return nil }
        taken += 1
        return (storage + taken - 1).move()
    }
}
