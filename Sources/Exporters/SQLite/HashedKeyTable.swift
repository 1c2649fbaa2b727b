/// A table keyed by 64-bit keys that are hashes already (the FNV-1a key of a UID, `Fingerprint.rawText` of a text),
/// for `SQLiteSourceMemory`: open addressing with linear probing, the slot taken from the key's bits by one
/// multiply (Fibonacci hashing), where a `Dictionary` would hash each key again with SipHash and probe through
/// its own bookkeeping. Grows by doubling at half full. Read-only once made, so it may be shared between threads.
struct HashedKeyTable<Value> {
    private enum State: UInt8 { case empty, one, ambiguous }

    private var keys: [UInt64]
    private var values: [Value?]
    private var states: [State]
    private var shift: UInt64
    private(set) var count = 0

    /// Room for `capacity` keys before it grows.
    init(capacity: Int = 0) {
        var bits: UInt64 = 4
        while (1 << bits) < capacity * 2 { bits += 1 }
        keys = Array(repeating: 0, count: 1 << bits)
        values = Array(repeating: nil, count: 1 << bits)
        states = Array(repeating: .empty, count: 1 << bits)
        shift = 64 - bits
    }

    /// The slot of `key`, or of the empty slot where it would go.
    private func slot(of key: UInt64) -> Int {
        let mask = keys.count - 1
        var i = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
        while states[i] != .empty, keys[i] != key { i = (i + 1) & mask }
        return i
    }

    /// The value of `key`; nil when it has none or was given two (`insertUnlessTaken`).
    subscript(key: UInt64) -> Value? {
        let i = slot(of: key)
        return states[i] == .one ? values[i] : nil
    }

    /// Adds `value` for `key`; a key given a second value keeps none (it is ambiguous, found as nil, for good).
    /// False when the key was ambiguous already (nothing changed).
    @discardableResult
    mutating func insertUnlessTaken(_ value: Value, for key: UInt64) -> Bool {
        let i = slot(of: key)
        switch states[i] {
        case .empty: fill(i, key, value)
        case .one:
            states[i] = .ambiguous
            values[i] = nil
        case .ambiguous: return false
        }
        return true
    }

    /// Changes the value of `key` (`initial` first when it has none).
    mutating func update(_ key: UInt64, initial: Value, _ change: (inout Value) -> Void) {
        let i = slot(of: key)
        if states[i] == .empty {
            var value = initial
            change(&value)
            fill(i, key, value)
        } else if var value = values[i] {
            values[i] = nil
            change(&value)
            values[i] = value
        }
    }

    private mutating func fill(_ i: Int, _ key: UInt64, _ value: Value) {
        keys[i] = key
        values[i] = value
        states[i] = .one
        count += 1
        if count * 2 > keys.count { grow() }
    }

    private mutating func grow() {
        var bigger = HashedKeyTable(capacity: keys.count)
        for i in keys.indices where states[i] != .empty {
            let j = bigger.slot(of: keys[i])
            bigger.keys[j] = keys[i]
            bigger.values[j] = values[i]
            bigger.states[j] = states[i]
        }
        bigger.count = count
        self = bigger
    }
}

extension HashedKeyTable: Sendable where Value: Sendable {}
