import XCTest
@testable import Exporters

/// `HashedKeyTable`, the stored events' tables of `SQLiteSourceMemory`: the same answers as a `Dictionary` with a
/// set of keys given twice, through growth, for keys that share their slot's bits and for keys in sequence.
final class HashedKeyTableTests: XCTestCase {
    func testSameAnswersAsADictionaryWithAmbiguousKeys() {
        var generator = SplitMix64(state: 20261128)
        // Random keys, keys 0..<n, and keys that differ only in their high bits (after the multiply, in the
        // same or nearby slots): every probe path is taken.
        let random = (0..<20_000).map { _ in UInt64.random(in: .min ... .max, using: &generator) }
        let keys = random + (0..<3_000).map(UInt64.init) + (0..<3_000).map { UInt64($0) << 50 }
        var table = HashedKeyTable<Int>()
        var expected: [UInt64: Int] = [:]
        var ambiguous: Set<UInt64> = []
        for (i, key) in keys.enumerated() {
            // Every seventh key comes twice: it must then be found as nil.
            let times = i % 7 == 0 ? 2 : 1
            for t in 0..<times {
                let wasAmbiguous = ambiguous.contains(key)
                XCTAssertEqual(table.insertUnlessTaken(i * 10 + t, for: key), !wasAmbiguous)
                if expected.updateValue(i * 10 + t, forKey: key) != nil || wasAmbiguous {
                    expected[key] = nil
                    ambiguous.insert(key)
                }
            }
        }
        let distinct = Set(keys)
        XCTAssertEqual(table.count, distinct.count)
        for key in keys { XCTAssertEqual(table[key], expected[key], "key \(key)") }
        // Keys never inserted are not found.
        for _ in 0..<5_000 {
            let key = UInt64.random(in: .min ... .max, using: &generator)
            if !distinct.contains(key) { XCTAssertNil(table[key]) }
        }
        for key in (3_000..<4_000).map({ UInt64($0) << 50 }) { XCTAssertNil(table[key]) }
    }

    func testUpdateCounts() {
        var table = HashedKeyTable<Int32>(capacity: 4)
        var expected: [UInt64: Int32] = [:]
        for i in 0..<10_000 {
            let key = UInt64(i % 1_234) &* 0x1_0000_0001
            table.update(key, initial: 0) { $0 += 1 }
            expected[key, default: 0] += 1
        }
        for (key, count) in expected { XCTAssertEqual(table[key], count) }
        XCTAssertEqual(table.count, expected.count)
        XCTAssertNil(table[7])
    }
}

/// A seeded generator: the same keys in every run.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
