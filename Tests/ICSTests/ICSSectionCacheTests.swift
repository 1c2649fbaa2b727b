import XCTest
@testable import Importers
import Pipeline

/// A parameter section read from the cache must be exactly what parsing the line gives, whatever the cache
/// held before: quoted values holding ':' ';' ',', the same bytes ending differently, sections that share a
/// slot (a one-slot cache), and lines whose parse fails.
final class ICSSectionCacheTests: XCTestCase {
    private let lines = [
        "DTSTART;TZID=Europe/Berlin:20260301T090000",
        "DTSTART;TZID=Europe/Berlin:20260302T090000",
        "DTEND;TZID=Europe/Berlin:20260302T100000",
        "DTSTART;TZID=Europe/Berlin;VALUE=DATE-TIME:20260302T090000",
        "DTSTART;TZID=\"Europe/Berlin\":20260302T090000",
        "ORGANIZER;CN=\"Doe: Jane; Esq.\";SENT-BY=\"mailto:a@b.c\":mailto:jane@example.com",
        "ORGANIZER;CN=\"Doe: Jane; Esq.\";SENT-BY=\"mailto:a@b.c\":mailto:john@example.com",
        "ORGANIZER;CN=\"Doe: Jane; Esq.\":mailto:jane@example.com",
        "X-THING;A=1,2,\"3,4\";B=^'q^':value:with:colons",
        "X-THING;A=1,2,\"3,4\";B=^'q^':other",
        "X-THING;A=1,2:x",
        "X-THING;A=1,2;:x",
        "X-THING;A=\"unterminated:x",
        "X-THING;A=1;V%LUE=2;B=3:x",
        "X-THING;A=1;V%LUE=2;B=3:y",
        "X-THING;A=\"1\"junk;B=3:x",
        "ATTENDEE;CN=Ann;R@LE=CHAIR:mailto:ann@example.com",
        "SUMMARY:no parameters",
        "ATTENDEE;CN=Anna Müller;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;RSVP=TRUE:mailto:anna@example.com",
        "ATTENDEE;CN=Anna Müller;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;RSVP=TRUE:MAILTO:anna2@example.com",
        "ATTENDEE;CN=\"Müller, Anna\";CN=Second;PARTSTAT=DECLINED:  mailto:anna@example.com  ",
        "ATTENDEE;CN=\"Müller, Anna\";CN=Second;PARTSTAT=DECLINED:",
        "ATTENDEE;CN=\"A:B\";ROLE=CHAIR:mailto:ab@example.com",
        "ATTENDEE;ROLE=CHAIR;X-A=\"1\",2:mailto:ab@example.com",
    ]

    private func decode(_ b: UnsafeBufferPointer<UInt8>) -> String { String(decoding: b, as: UTF8.self) }

    private func parsed(_ line: String, caches: ICSParameterCaches?) -> String {
        var bytes = Array(line.utf8)
        return bytes.withUnsafeMutableBufferPointer { m in
            let b = UnsafeBufferPointer(m)
            var dropped: [ICSContentLine.DroppedParameter] = []
            do throws(ICSContentLine.SyntaxError) {
                if ICSContentLine.isAttendee(b) {
                    return "\(try ICSContentLine.parseAttendee(b, line: 1, decodeValue: decode, cache: caches?.attendees, dropped: &dropped)) \(dropped)"
                }
                return "\(try ICSContentLine.parse(b, line: 1, decodeValue: decode, cache: caches?.parameters, dropped: &dropped)) \(dropped)"
            } catch {
                return "error: \(error.reason)"
            }
        }
    }

    func testCachedSectionsParseExactlyAsWithoutTheCache() {
        let expected = lines.map { parsed($0, caches: nil) }
        XCTAssertTrue(expected.contains { $0.hasPrefix("error: malformed parameter (unterminated quoted value)") })
        XCTAssertTrue(expected.contains { $0.contains("Doe: Jane; Esq.") })
        // A repaired section says its repair each time it is read, from the cache or not.
        XCTAssertEqual(expected.filter { $0.contains("the parameter is dropped") }.count, 4)
        for slots in [1, 2, 512] {
            let caches = ICSParameterCaches(slots: slots)
            // Three passes, forwards and backwards: every line meets a cache holding other sections.
            for (pass, order) in [Array(lines.indices), Array(lines.indices.reversed()), Array(lines.indices)].enumerated() {
                for i in order {
                    XCTAssertEqual(parsed(lines[i], caches: caches), expected[i], "slots \(slots), pass \(pass): \(lines[i])")
                }
            }
        }
    }

    func testARepeatedSectionIsAHit() {
        let caches = ICSParameterCaches()
        var a = Array("DTSTART;TZID=Europe/Berlin:20260301T090000".utf8)
        let b = Array("DTEND;TZID=Europe/Berlin:20260301T100000".utf8)
        var dropped: [ICSContentLine.DroppedParameter] = []
        let first = a.withUnsafeBufferPointer { try? ICSContentLine.parse($0, line: 1, decodeValue: decode, cache: caches.parameters, dropped: &dropped) }
        let hit = b.withUnsafeBufferPointer { caches.parameters.lookup($0, from: 5) }
        XCTAssertEqual(hit?.value, first?.parameters)
        XCTAssertEqual(hit?.colon, 24)
        a[8] = UInt8(ascii: "X")  // ;XZID=...: a different section
        XCTAssertNil(a.withUnsafeBufferPointer { caches.parameters.lookup($0, from: 7) })
    }
}
