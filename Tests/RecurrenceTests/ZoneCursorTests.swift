@testable import Pipeline
import XCTest

/// ZoneCursor answers from the stretch between two transitions it remembers; its answers must be the
/// zone's own, also around DST changes (gaps, repeated hours) and when times jump back and forth.
final class ZoneCursorTests: XCTestCase {
    static let zones: [Zone] = [
        Zone.system(identifier: "Europe/Berlin")!, Zone.system(identifier: "America/New_York")!,
        Zone.system(identifier: "Australia/Lord_Howe")!,  // half-hour DST
        Zone(identifier: "Custom", transitions: [1_774_000_000, 1_774_100_000, 1_790_000_000], offsets: [3600, 7200, -18_000, 0]),
        Zone.fixed(offsetSeconds: 19_800), .utc,
    ]

    /// Local times every 7 minutes 13 seconds through 2026 and 2027, and each zone's transitions ±3 hours
    /// (every minute) and ±4 days (every hour).
    func localTimes(around zone: Zone) -> [Int64] {
        var times = Array(stride(from: Int64(1_767_225_600), to: 1_830_297_600, by: 433))
        for t in zone.transitions where t > 1_700_000_000 && t < 1_900_000_000 {
            times += stride(from: t - 3 * 3600, to: t + 3 * 3600, by: 60)
            times += stride(from: t - 4 * 86_400, to: t + 4 * 86_400, by: 3600)
            times += stride(from: t - 3 * 86_400 - 7200, to: t - 3 * 86_400 + 7200, by: 60)
            times += stride(from: t + 3 * 86_400 - 7200, to: t + 3 * 86_400 + 7200, by: 60)
        }
        return times
    }

    func testAnswersAreTheZonesInOrderAndShuffled() {
        var generator = SystemRandomNumberGenerator()
        for zone in Self.zones {
            let sorted = localTimes(around: zone).sorted()
            for times in [sorted, sorted.shuffled(using: &generator)] {
                var cursor = ZoneCursor(zone)
                var mismatches = 0
                for l in times {
                    let local = CivilDateTime(secondsSinceEpoch: l)
                    if cursor.utc(fromLocal: local) != zone.utc(fromLocal: local) { mismatches += 1 }
                    if cursor.local(fromUTC: l) != zone.local(fromUTC: l) { mismatches += 1 }
                }
                XCTAssertEqual(mismatches, 0, zone.identifier)
            }
        }
    }

    func testInstantsAreEventTimeUTCSeconds() {
        let pipeline = Self.zones[0]
        var instants = ZoneCursor.Instants(pipelineZone: pipeline)
        var checked = 0
        for zone in Self.zones {
            for l in localTimes(around: zone) where l % 5 == 0 {
                let local = CivilDateTime(secondsSinceEpoch: l)
                for time in [EventTime.zoned(local, zone), .floating(local), .utc(l), .date(local.date)] {
                    XCTAssertEqual(instants.utcSeconds(time), time.utcSeconds(in: pipeline))
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 100_000)
    }
}
