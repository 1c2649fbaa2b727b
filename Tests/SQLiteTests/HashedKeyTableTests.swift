import XCTest
@testable import Exporters

/// `HashedKeyTable`, the stored events' tables of `SQLiteSourceMemory`: the same answers as a `Dictionary` with a
/// set of keys given twice, through growth, for keys that share their slot's bits and for keys in sequence.
final class HashedKeyTableTests: XCTestCase {
    func testSameAnswersAsADictionaryWithAmbiguousKeys() {
        // Keys spread like hashes (a bijection of 0..<n, so the ones never inserted are known), keys 0..<n, and keys
        // that differ only in their high bits (after the multiply, in the same or nearby slots): every probe path.
        func spread(_ i: Int) -> UInt64 {
            let z = UInt64(i) &* 0xD6E8_FEB8_6659_FD93
            return z ^ (z >> 32)
        }
        let keys = (0..<20_000).map(spread) + (0..<3_000).map(UInt64.init) + (0..<3_000).map { UInt64($0) << 50 }
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
        for key in (20_000..<25_000).map(spread) where !distinct.contains(key) { XCTAssertNil(table[key]) }
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

