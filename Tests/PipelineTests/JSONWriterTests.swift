import Foundation
import XCTest
@testable import Pipeline

/// `JSONWriter` (a `JSONValue` tree) and the byte writer the sinks call member by member (`JSONBytes`) are one
/// writer: the same tricky values written both ways are the same bytes, compact and pretty, at any indent,
/// and those bytes are the ones calpipe has always written (pinned below), and read back as the values.
final class JSONWriterTests: XCTestCase {
    private static let controls = String(decoding: (0..<0x20).map { UInt8($0) } + [0x7F], as: UTF8.self)
    private static let quotes = "say \"hi\" \\ C:\\path\\ \\\""
    private static let nonASCII = "Zürich – 会議室 📅 e\u{301} \u{2028}"
    private static let numbers: [Double] = [-0.0, 0, 1e15, -1e15, 999_999_999_999_999, 0.1, -5.5, 1e300, 2.5e-8, .nan, .infinity, -.infinity, 47.376_887]

    private static var tree: JSONValue {
        .object(JSONObject([
            ("controls", .string(controls)),
            (quotes, .string(quotes)),
            ("text", .string(nonASCII)),
            ("numbers", .array(numbers.map(JSONValue.number))),
            ("empty", .array([.array([]), .object(JSONObject()), .string(""),
                              .array([.array([]), .object(JSONObject([("e", .object(JSONObject())), ("a", .array([.null]))]))])])),
            ("flags", .array([.bool(true), .bool(false), .null])),
        ]))
    }

    /// The same document, written member by member as the sinks write theirs.
    private static func handWritten(_ out: JSONBytes, level: Int) {
        var first = true
        out.raw("{")
        out.key("controls", level: level, first: &first)
        out.quoted(controls)
        out.key(quotes, level: level, first: &first)
        out.quoted(quotes)
        out.key("text", level: level, first: &first)
        out.string(nonASCII)
        out.key("numbers", level: level, first: &first)
        out.raw("[")
        var element = true
        for n in numbers {
            out.element(level: level + 1, first: &element)
            out.number(n)
        }
        out.close("]", level: level + 1, empty: element)
        out.key("empty", level: level, first: &first)
        out.raw("[")
        element = true
        out.element(level: level + 1, first: &element)
        out.raw("[")
        out.close("]", level: level + 2, empty: true)
        out.element(level: level + 1, first: &element)
        out.raw("{")
        out.close("}", level: level + 2, empty: true)
        out.element(level: level + 1, first: &element)
        out.quoted("")
        out.element(level: level + 1, first: &element)
        out.raw("[")
        var inner = true
        out.element(level: level + 2, first: &inner)
        out.raw("[]")
        out.element(level: level + 2, first: &inner)
        out.raw("{")
        var member = true
        out.key("e", level: level + 3, first: &member)
        out.raw("{}")
        out.key("a", level: level + 3, first: &member)
        out.raw("[")
        var deepest = true
        out.element(level: level + 4, first: &deepest)
        out.string(nil)
        out.close("]", level: level + 4, empty: deepest)
        out.close("}", level: level + 3, empty: member)
        out.close("]", level: level + 2, empty: inner)
        out.close("]", level: level + 1, empty: element)
        out.key("flags", level: level, first: &first)
        out.raw("[")
        element = true
        for write in [{ out.bool(true) }, { out.bool(false) }, { out.null() }] {
            out.element(level: level + 1, first: &element)
            write()
        }
        out.close("]", level: level + 1, empty: element)
        out.close("}", level: level, empty: first)
    }

    func testTreeAndByteWriterWriteTheSameBytes() {
        for pretty in [false, true] {
            for level in [0, 1, 4] {
                let out = JSONBytes(pretty: pretty, capacity: 16)  // small: grows many times on the way
                Self.handWritten(out, level: level)
                let walked = JSONBytes(pretty: pretty)
                walked.value(Self.tree, level: level)
                XCTAssertEqual(out.bytes, walked.bytes, "pretty \(pretty) level \(level)")
                if level == 0 { XCTAssertEqual(out.string, JSONWriter(pretty: pretty).string(Self.tree), "pretty \(pretty)") }
            }
        }
    }

    func testTheBytesAreCalpipesJSON() throws {
        let compact = JSONWriter(pretty: false).string(Self.tree)
        let controls = #"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\t\n\u000b\u000c\r\u000e\u000f"#
            + #"\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f"# + "\u{7F}"
        let quotes = #"say \"hi\" \\ C:\\path\\ \\\""#
        XCTAssertEqual(compact, #"{"controls":""# + controls + #"",""# + quotes + #"":""# + quotes + #"","text":"Zürich – 会議室 📅 e"#
            + "\u{301} \u{2028}" + #"","numbers":[0,0,1000000000000000.0,-1000000000000000.0,999999999999999,0.1,-5.5,1e+300,2.5e-08,null,null,null,47.376887],"#
            + #""empty":[[],{},"",[[],{"e":{},"a":[null]}]],"flags":[true,false,null]}"#)

        let pretty = JSONWriter(pretty: true).string(Self.tree)
        let expectedPretty = """
            {
              "controls": "\(controls)",
              "\(quotes)": "\(quotes)",
              "text": "\(Self.nonASCII)",
              "numbers": [
                0,
                0,
                1000000000000000.0,
                -1000000000000000.0,
                999999999999999,
                0.1,
                -5.5,
                1e+300,
                2.5e-08,
                null,
                null,
                null,
                47.376887
              ],
              "empty": [
                [],
                {},
                "",
                [
                  [],
                  {
                    "e": {},
                    "a": [
                      null
                    ]
                  }
                ]
              ],
              "flags": [
                true,
                false,
                null
              ]
            }
            """
        XCTAssertEqual(pretty, expectedPretty)

        // Foundation's reader gets the values back (NaN and the infinities, which JSON lacks, as null).
        for text in [compact, pretty] {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            XCTAssertEqual(object["controls"] as? String, Self.controls)
            XCTAssertEqual(object[Self.quotes] as? String, Self.quotes)
            XCTAssertEqual(object["text"] as? String, Self.nonASCII)
            let numbers = try XCTUnwrap(object["numbers"] as? [Any])
            for (n, read) in zip(Self.numbers, numbers) {
                if n.isFinite { XCTAssertEqual((read as? NSNumber)?.doubleValue, n, "\(n)") } else { XCTAssertTrue(read is NSNull, "\(n)") }
            }
        }
    }

    /// Strings of every length around the escaper's sixteen-byte step, a byte to escape at each position,
    /// written by the tree walk, read back by Foundation.
    func testEscapedStringsReadBack() throws {
        for length in [0, 1, 15, 16, 17, 33] {
            for special in ["\"", "\\", "\n", "\u{0}", "\u{1F}", "é"] {
                for at in 0...length {
                    var scalars = Array(repeating: "x", count: length)
                    scalars.insert(special, at: at)
                    let s = scalars.joined()
                    let text = JSONWriter(pretty: false).string(.array([.string(s)]))
                    let read = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String])
                    XCTAssertEqual(read, [s])
                }
            }
        }
    }
}
