import CalpipeKit
import Foundation
import XCTest

/// docs/architecture.md, "Declaring a plugin's options": the example config, as written there, through
/// `import CalpipeKit` only: decoded by the loader for a plugin of the program's own, with its rule and messages.
final class DeclaredOptionsExampleTests: XCTestCase {
    // The example from the docs, unchanged.
    struct Options: OptionConfig {
        enum Order: String, CaseIterable, Sendable { case oldest, newest }

        var titles: [String] = []
        var firstDay = CivilDate(year: 2026, month: 12, day: 1)
        var order = Order.oldest                 // an enum: its cases are the allowed values
        var every: Duration = .seconds(86_400)   // "30s", "15m", "6h", "2d"
        var limit: Int?                          // nil when not given
        var token: Secret?                       // "<redacted>" wherever it is printed
        var auth = HTTPAuthOptions()             // the shared log-in options, at this level
        var window = Span()                      // a nested object, {"from": ..., "to": ...}

        struct Span: OptionConfig {
            var from = "today"
            var days = 7
            static let options = OptionSpec<Span> {
                Key("from", \.from, .string, "the first day")
                Key("days", \.days, .integer(in: 1...366), "how many days")
            }
        }

        static let options = OptionSpec<Options> {
            Key("titles", \.titles, .strings, required: true, "the events' titles, one a day")
            Key("first_day", \.firstDay, day, "the first event's day (YYYY-MM-DD)")
            Key("order", \.order, .choice, "which title comes first")
            Key("every", \.every, .duration(in: .seconds(60) ... .seconds(604_800)), "time between two events")
            Key("limit", \.limit, .integer(in: 1...1000), "at most this many events", default: "one per title")
            Key("token", \.token, .secret, "the API's token (use ${ENV})")
            Include(\.auth)
            Group("window", \.window, "the days to make events for")
        }

        /// A kind of the plugin's own: a string read on into a date, with its message.
        static let day = OptionType<String>.string.map({ text, input -> CivilDate? in
            guard let day = ISODate.parseDate(text) else { input.report("invalid date \"\(text)\" (expected YYYY-MM-DD)"); return nil }
            return day
        }, encode: { $0.iso8601 })

        /// Rules between options, with their paths: runs after decoding, may also derive values.
        mutating func validate(_ context: OptionContext<Options>) {
            if token != nil, context.isGiven(\.auth.username) { context.report(\.token, "give either \"token\" or \"username\", not both") }
        }
    }

    final class Seen: @unchecked Sendable { var options: Options? }

    /// A source that only keeps what it was given.
    final class ExampleSource: EventSource {
        func read(context: RunContext, emit: (Batch) throws -> Void) throws {}
    }

    private func load(_ source: String, seen: Seen) throws -> PipelineDefinition {
        var registry = PluginRegistry.standard
        registry.register(SourceDescriptor(type: "example", kind: .source, summary: "the docs' example", options: Options.self) { options, _ in
            seen.options = options
            return ExampleSource()
        })
        let loader = PipelineLoader(registry: registry, environment: ["TZ": "UTC", "EXAMPLE_TOKEN": "t0ken"])
        let json = try JSONParser.parse(#"{"sources": [\#(source)], "sinks": [{"type": "json", "path": "-", "shape": "events"}]}"#)
        return try loader.load(json: json, file: "example.json", baseDirectory: URL(fileURLWithPath: "/tmp"))
    }

    func testTheDocsExampleDecodesAndChecks() throws {
        let seen = Seen()
        _ = try load(#"{"type": "example", "titles": "one", "first_day": "2026-12-24", "order": "newest", "every": "6h", "token": "${EXAMPLE_TOKEN}", "window": {"days": 3}}"#, seen: seen)
        let options = try XCTUnwrap(seen.options)
        XCTAssertEqual(options.titles, ["one"])
        XCTAssertEqual(options.firstDay, CivilDate(year: 2026, month: 12, day: 24))
        XCTAssertEqual(options.order, .newest)
        XCTAssertEqual(options.every, .seconds(21_600))
        XCTAssertNil(options.limit)
        XCTAssertEqual(options.token?.reveal(), "t0ken")
        XCTAssertEqual(options.window.days, 3)
        XCTAssertEqual(options.window.from, "today")

        XCTAssertThrowsError(try load(#"{"type": "example", "first_day": "soon", "every": "10s", "token": "x", "username": "me", "window": {"days": 0}}"#, seen: Seen())) { error in
            XCTAssertEqual((error as? ConfigErrors)?.issues.map(\.description), [
                "example.json: sources[0].titles: missing required option (expected an array)",
                #"example.json: sources[0].first_day: invalid date "soon" (expected YYYY-MM-DD)"#,
                "example.json: sources[0].every: 10s is out of range (expected 1m to 1w)",
                "example.json: sources[0].window.days: 0 is out of range (expected 1 to 366)",
                #"example.json: sources[0].token: give either "token" or "username", not both"#,
            ])
        }
    }

    func testTheDocsExampleGivesItsDocsWithJSONDefaults() {
        let docs = Dictionary(uniqueKeysWithValues: Options.options.docs.map { ($0.name, $0) })
        XCTAssertEqual(docs["first_day"]?.defaultJSON, .string("2026-12-01"))
        XCTAssertEqual(docs["every"]?.defaultJSON, .string("1d"))
        XCTAssertEqual(docs["order"]?.values, ["oldest", "newest"])
        XCTAssertEqual(docs["limit"]?.defaultValue, "one per title")
        XCTAssertNil(docs["limit"]?.defaultJSON)
        XCTAssertEqual(docs["window"]?.members?.map(\.name), ["from", "days"])
    }
}
