/// A table keyed by 64-bit keys that are hashes already (the FNV-1a key of a UID, `Fingerprint.rawText` of a text),
/// for `SQLiteSourceMemory`: open addressing with linear probing, the slot taken from the key's bits by one
/// multiply (Fibonacci hashing), where a `Dictionary` would hash each key again with SipHash and probe through
/// its own bookkeeping. Grows by doubling at half full. Read-only once made, so it may be shared between threads.
struct HashedKeyTable<Value> {
    fileprivate enum State: UInt8 { case empty, one, ambiguous }

    /// Key, state and value side by side: a lookup touches one cache line.
    fileprivate struct Slot {
        var key: UInt64 = 0
        var state = State.empty
        var value: Value?
    }

    private var slots: [Slot]
    private var shift: UInt64
    private(set) var count = 0

    /// Room for `capacity` keys before it grows.
    init(capacity: Int = 0) {
        var bits: UInt64 = 4
        while (1 << bits) < capacity * 2 { bits += 1 }
        slots = Array(repeating: Slot(), count: 1 << bits)
        shift = 64 - bits
    }

    /// The slot of `key`, or of the empty slot where it would go.
    private func slot(of key: UInt64) -> Int {
        slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var i = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
            while slots[i].state != .empty, slots[i].key != key { i = (i + 1) & mask }
            return i
        }
    }

    /// The value of `key`; nil when it has none or was given two (`insertUnlessTaken`).
    subscript(key: UInt64) -> Value? {
        let i = slot(of: key)
        return slots[i].state == .one ? slots[i].value : nil
    }

    /// Adds `value` for `key`; a key given a second value keeps none (it is ambiguous, found as nil, for good).
    /// False when the key was ambiguous already (nothing changed).
    @discardableResult
    mutating func insertUnlessTaken(_ value: Value, for key: UInt64) -> Bool {
        let i = slot(of: key)
        switch slots[i].state {
        case .empty: fill(i, key, value)
        case .one:
            slots[i].state = .ambiguous
            slots[i].value = nil
        case .ambiguous: return false
        }
        return true
    }

    /// Changes the value of `key` (`initial` first when it has none).
    mutating func update(_ key: UInt64, initial: Value, _ change: (inout Value) -> Void) {
        let i = slot(of: key)
        if slots[i].state == .empty {
            var value = initial
            change(&value)
            fill(i, key, value)
        } else if slots[i].value != nil {
            change(&slots[i].value!)
        }
    }

    private mutating func fill(_ i: Int, _ key: UInt64, _ value: Value) {
        slots[i] = Slot(key: key, state: .one, value: value)
        count += 1
        if count * 2 > slots.count { grow() }
    }

    private mutating func grow() {
        var bigger = HashedKeyTable(capacity: slots.count)
        for slot in slots where slot.state != .empty { bigger.slots[bigger.slot(of: slot.key)] = slot }
        bigger.count = count
        self = bigger
    }
}

extension HashedKeyTable: Sendable where Value: Sendable {}
extension HashedKeyTable.Slot: Sendable where Value: Sendable {}
