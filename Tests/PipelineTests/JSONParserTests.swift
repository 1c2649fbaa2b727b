import XCTest
@testable import Pipeline

final class JSONParserTests: XCTestCase {
    func testValuesEscapesAndKeyOrder() throws {
        let v = try JSONParser.parse(#"{"b": [1, 2.5, -3e2, true, false, null], "a": "x\"\\\/\n\u00e9\ud83d\ude00"}"#)
        guard case .object(let o) = v else { return XCTFail("not an object") }
        XCTAssertEqual(o.keys, ["b", "a"])
        XCTAssertEqual(o["b"], .array([.number(1), .number(2.5), .number(-300), .bool(true), .bool(false), .null]))
        XCTAssertEqual(o["a"], .string("x\"\\/\né😀"))
        XCTAssertEqual(JSONWriter(pretty: false).string(v), #"{"b":[1,2.5,-300,true,false,null],"a":"x\"\\/\né😀"}"#)
    }

    func testErrorsCarryLineAndColumn() {
        let cases: [(String, String)] = [
            ("[1, 2,\n  ]", "line 2, column 3: unexpected character \"]\" (expected a value)"),
            ("{\"a\": 01}", "line 1, column 7: invalid number (leading zero)"),
            ("[\"é\", tru]", "line 1, column 7: invalid literal (expected true)"),
            ("{\"a\": \"x", "line 1, column 9: unterminated string"),
            ("[1] 2", "line 1, column 5: unexpected text after the JSON value"),
            ("", "line 1, column 1: unexpected end of input (expected a value)"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try JSONParser.parse(text), text) { error in
                XCTAssertEqual((error as? JSONSyntaxError)?.description, expected, text)
            }
        }
    }

    func testDeepNestingIsAnErrorNotACrash() {
        let text = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        XCTAssertThrowsError(try JSONParser.parse(text)) { error in
            XCTAssertEqual((error as? JSONSyntaxError)?.message, "nesting deeper than 512 levels")
        }
    }

    func testStreamingATopLevelArray() throws {
        var text = "[{\"a\": 1}, {\"a\": 2}, {\"a\": 3}]"
        let values: [JSONValue] = try text.withUTF8 { buffer in
            var parser = JSONParser(bytes: buffer)
            XCTAssertTrue(try parser.beginTopLevelArray())
            var out: [JSONValue] = []
            while let v = try parser.nextArrayElement(isFirst: out.isEmpty) { out.append(v) }
            return out
        }
        XCTAssertEqual(values.count, 3)
        XCTAssertEqual(values[2].value(atDottedPath: "a"), .number(3))
    }

    func testDottedPaths() throws {
        let v = try JSONParser.parse(#"{"data": {"events": [{"when": {"begin": "2026-11-23"}}]}}"#)
        XCTAssertEqual(v.value(atDottedPath: "data.events.0.when.begin"), .string("2026-11-23"))
        XCTAssertNil(v.value(atDottedPath: "data.events.1"))
    }
}
