import Foundation
import XCTest
import Importers
import Pipeline

/// calpipe's parsed events equal what python `icalendar` reads from the same files
/// (expected outputs made by scripts/ics-oracle.py, stored next to the corpus).
final class ICSDifferentialTests: XCTestCase {
    static func projection(_ e: Event) -> [String: String] {
        [
            "uid": e.uid,
            "summary": e.title ?? "<nil>",
            "location": e.location ?? "<nil>",
            "start": e.start.iso8601,
            "end": e.end.iso8601,
            "all_day": e.isAllDay ? "true" : "false",
            "rrule": e.recurrence.rules.first?.text ?? "<nil>",
        ]
    }

    static func expected(_ name: String) throws -> [[String: String]] {
        let data = try Data(contentsOf: Fixtures.url("corpus/expected/" + name.replacingOccurrences(of: ".ics", with: ".json")))
        let root = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let events = try XCTUnwrap(root["events"] as? [[String: Any]])
        return events.map { e in
            var out: [String: String] = [:]
            for key in ["uid", "summary", "location", "start", "end", "rrule"] { out[key] = (e[key] as? String) ?? "<nil>" }
            out["all_day"] = (e["all_day"] as? Bool) == true ? "true" : "false"
            return out
        }
    }

    static func sorted(_ list: [[String: String]]) -> [[String: String]] {
        list.sorted { ($0["uid"]!, $0["start"]!) < ($1["uid"]!, $1["start"]!) }
    }

    func testCorpusMatchesPythonICalendar() throws {
        let files = try Fixtures.files(in: "corpus")
        XCTAssertGreaterThanOrEqual(files.count, 20)
        var compared = 0
        for name in files {
            let result = try readICS(try Fixtures.bytes("corpus/" + name), label: name)
            XCTAssertEqual(result.rejections, [], name)
            let ours = Self.sorted(result.events.map(Self.projection))
            let theirs = Self.sorted(try Self.expected(name))
            XCTAssertEqual(ours.count, theirs.count, "\(name): event count")
            for (a, b) in zip(ours, theirs) {
                for key in b.keys.sorted() where a[key] != b[key] {
                    XCTFail("\(name) \(b["uid"]!): \(key) is \(a[key] ?? "-"), python icalendar says \(b[key]!)")
                }
                compared += 1
            }
        }
        XCTAssertEqual(compared, 52)
    }

    /// Lines split across chunk boundaries anywhere (even inside a UTF-8 character or a CRLF) read the same.
    func testChunkBoundariesDoNotMatter() throws {
        for name in ["06-folded-utf8.ics", "01-outlook-windows-zones.ics", "09-bare-lf.ics"] {
            let bytes = try Fixtures.bytes("corpus/" + name)
            let whole = try readICS(bytes, label: name)
            for chunk in [1, 2, 3, 7, 64] {
                let pieces = try readICS(bytes, label: name, chunk: chunk)
                XCTAssertEqual(pieces.events, whole.events, "\(name) in chunks of \(chunk)")
            }
        }
    }
}
