import Foundation
import XCTest
@testable import Pipeline

/// Options decoded from their declaration (`OptionSpec`): every kind, defaults, nested groups and their paths,
/// the messages (the loader's contract), secrets kept out of descriptions, `${ENV}` values, docs and schema.
final class OptionSpecTests: XCTestCase {
    struct Sample: OptionConfig {
        enum Order: String, CaseIterable, Sendable { case oldest, newest }

        var name = "untitled"
        var count = 3
        var ratio = 0.5
        var enabled = false
        var order = Order.oldest
        var file: OptionPath?
        var address: String?
        var every: Duration = .seconds(86_400)
        var budget = 10_000_000
        var tint: String?
        var tags: [String] = []
        var labels: [(key: String, value: String)] = []
        var token: Secret?
        var zone: Zone?
        var auth = HTTPAuthOptions()
        var window = Span()
        var extra: Span?
        /// Derived in `validate`.
        var countGiven = false

        struct Span: OptionConfig {
            var from = "today"
            var days = 7
            static let options = OptionSpec<Span> {
                Key("from", \.from, .string, "the first day")
                Key("days", \.days, .integer(in: 1...366), "how many days")
            }
        }

        static let options = OptionSpec<Sample> {
            Key("name", \.name, .string, "a name")
            Key("count", \.count, .integer(in: 1...100), "how many")
            Key("ratio", \.ratio, .number(in: 0...1), "a share")
            Key("enabled", \.enabled, .boolean, "on or off")
            Key("order", \.order, .choice, "which first")
            Key("file", \.file, .path, "a file")
            Key("address", \.address, .url, "a server")
            Key("every", \.every, .duration(in: .seconds(60) ... .seconds(604_800)), "how often")
            Key("budget", \.budget, .byteSize, "how much")
            Key("tint", \.tint, .color, "a colour")
            Key("tags", \.tags, .strings, "some words")
            Key("labels", \.labels, .stringMap, "names to texts")
            Key("token", \.token, .secret, "a key")
            Key("zone", \.zone, .timeZone, "a zone")
            Include(\.auth)
            Group("window", \.window, "days")
            Group("extra", \.extra, "more days")
        }

        mutating func validate(_ context: OptionContext<Sample>) {
            countGiven = context.isGiven(\.count)
            if token != nil, context.isGiven(\.auth.username) { context.report(\.token, "give either \"token\" or \"username\", not both") }
        }
    }

    struct Strict: OptionConfig {
        var path = OptionPath()
        var span = Sample.Span()
        static let options = OptionSpec<Strict> {
            Key("path", \.path, .path, required: true, "the file")
            Group("span", \.span, required: true, "the days")
        }
    }

    private func decode(_ json: String, env: [String: String] = [:]) throws -> (config: Sample, problems: [String]) {
        guard case .object(let raw) = try JSONParser.parse(json) else { throw CalpipeError("not an object") }
        let diagnostics = ConfigDiagnostics(file: "p.json")
        let expanded = EnvironmentInterpolation.expand(.object(raw), path: "sources[0]", environment: env, diagnostics: diagnostics)
        let environment = TestSupport.environment(base: URL(fileURLWithPath: "/srv/cal"), env: env)
        let input = OptionInput(path: "sources[0]", environment: environment, diagnostics: diagnostics)
        let config = Sample.options.decode(expanded.objectValue ?? JSONObject(), at: input, allowing: ["type"])
        return (config, diagnostics.issues.map(\.description))
    }

    func testEveryKindDecodesItsValue() throws {
        let (config, problems) = try decode("""
            {"type": "sample", "name": "team", "count": 42, "ratio": 0.25, "enabled": true, "order": "newest",
             "file": "data/a.ics", "address": "https://example.com/x", "every": "15m", "budget": "64KiB", "tint": "steelblue",
             "tags": ["a", "b"], "labels": {"title": "name", "start": "when"}, "token": "s3cret", "zone": "Europe/Berlin",
             "max_stale": "2d", "window": {"days": 14}, "extra": {"from": "2026-12-01"}}
            """)
        XCTAssertEqual(problems, [])
        XCTAssertEqual(config.name, "team")
        XCTAssertEqual(config.count, 42)
        XCTAssertEqual(config.ratio, 0.25)
        XCTAssertTrue(config.enabled)
        XCTAssertEqual(config.order, .newest)
        XCTAssertEqual(config.file?.written, "data/a.ics")
        XCTAssertEqual(config.file?.resolved, "/srv/cal/data/a.ics")
        XCTAssertEqual(config.file?.label, "data/a.ics")
        XCTAssertEqual(config.address, "https://example.com/x")
        XCTAssertEqual(config.every, .seconds(900))
        XCTAssertEqual(config.budget, 65_536)
        XCTAssertEqual(config.tint, "#4682b4")
        XCTAssertEqual(config.tags, ["a", "b"])
        XCTAssertEqual(config.labels.map { "\($0.key)=\($0.value)" }, ["title=name", "start=when"])
        XCTAssertEqual(config.token?.reveal(), "s3cret")
        XCTAssertEqual(config.zone?.identifier, "Europe/Berlin")
        XCTAssertEqual(config.auth.maxStale, .seconds(172_800))
        XCTAssertEqual(config.window.days, 14)
        XCTAssertEqual(config.window.from, "today", "a member not given keeps the group's default")
        XCTAssertEqual(config.extra?.from, "2026-12-01")
        XCTAssertEqual(config.extra?.days, 7)
        XCTAssertTrue(config.countGiven)
    }

    func testAbsentOptionsKeepTheConfigsDefaults() throws {
        let (config, problems) = try decode(#"{"type": "sample"}"#)
        XCTAssertEqual(problems, [])
        XCTAssertEqual(config.name, "untitled")
        XCTAssertEqual(config.count, 3)
        XCTAssertEqual(config.every, .seconds(86_400))
        XCTAssertNil(config.file)
        XCTAssertNil(config.extra, "an optional group stays nil")
        XCTAssertEqual(config.window.days, 7)
        XCTAssertTrue(config.auth.netrc)
        XCTAssertFalse(config.countGiven)
    }

    func testEveryProblemIsReportedWithItsPathInTheLoadersWords() throws {
        let (_, problems) = try decode("""
            {"type": "sample", "nmae": "x", "count": 0, "ratio": "half", "enabled": "yes", "order": "newset",
             "file": "", "address": "ftp://example.com", "every": "soon", "budget": "lots", "tint": "#12345",
             "tags": ["a", 2], "labels": {"title": 3}, "zone": "Europe/Berln", "window": {"dayz": 3, "days": 400},
             "extra": [1], "password": "p"}
            """)
        XCTAssertEqual(problems, [
            #"p.json: sources[0].nmae: unknown option (expected one of: name, count, ratio, enabled, order, file, address, every, budget, tint, tags, labels, token, zone, headers, bearer_token, username, password, netrc, max_stale, window, extra); did you mean "name"?"#,
            "p.json: sources[0].count: 0 is out of range (expected 1 to 100)",
            #"p.json: sources[0].ratio: expected a number, got a string "half""#,
            #"p.json: sources[0].enabled: expected a boolean (true or false), got a string "yes""#,
            #"p.json: sources[0].order: unknown value "newset" (expected one of: oldest, newest); did you mean "newest"?"#,
            "p.json: sources[0].file: expected a path, got an empty string",
            #"p.json: sources[0].address: expected an http:// or https:// address, got "ftp://example.com""#,
            #"p.json: sources[0].every: expected a duration such as "30s", "15m", "6h" or "2d", got "soon""#,
            #"p.json: sources[0].budget: expected a size such as "512KB", "10MB" or "1GB", got "lots""#,
            "p.json: sources[0].tint: " + CSSColor.problem("#12345"),
            "p.json: sources[0].tags[1]: expected a string, got a number 2",
            "p.json: sources[0].labels.title: expected a string, got a number 3",
            #"p.json: sources[0].zone: unknown time zone "Europe/Berln" (expected an IANA name such as "Europe/Berlin")"# + ZoneDatabase.hint(for: "Europe/Berln"),
            #"p.json: sources[0].username: missing ("password" needs a "username")"#,
            #"p.json: sources[0].window.dayz: unknown option (expected one of: from, days); did you mean "days"?"#,
            "p.json: sources[0].window.days: 400 is out of range (expected 1 to 366)",
            "p.json: sources[0].extra: expected an object, got an array [...]",
        ])
    }

    func testRangesOfDurationsAndSizesAreSaidInTheirUnits() throws {
        let (_, problems) = try decode(#"{"type": "sample", "every": "30s"}"#)
        XCTAssertEqual(problems, ["p.json: sources[0].every: 30s is out of range (expected 1m to 1w)"])
        XCTAssertEqual(DurationOption.text(90), "90s")
        XCTAssertEqual(DurationOption.text(7200), "2h")
        XCTAssertEqual(ByteSizeText.bytes("10MB"), 10_000_000)
        XCTAssertEqual(ByteSizeText.bytes(" 1.5 kb "), 1500)
        XCTAssertEqual(ByteSizeText.bytes("2MiB"), 2 << 20)
        XCTAssertNil(ByteSizeText.bytes("1.5B"))
        XCTAssertEqual(ByteSizeText.text(10_000_000), "10MB")
        XCTAssertEqual(ByteSizeText.text(3 << 20), "3MiB")
        XCTAssertEqual(ByteSizeText.text(999), "999B")
    }

    func testMissingRequiredOptionsAndValidateRulesNameTheirPaths() throws {
        let diagnostics = ConfigDiagnostics(file: "p.json")
        let input = OptionInput(path: "sinks[1]", environment: TestSupport.environment(), diagnostics: diagnostics)
        _ = Strict.options.decode(JSONObject(), at: input)
        XCTAssertEqual(diagnostics.issues.map(\.description), [
            "p.json: sinks[1].path: missing required option (expected a path (a string))",
            "p.json: sinks[1].span: missing required option (expected an object)",
        ])
        let (_, problems) = try decode(#"{"token": "t", "username": "u"}"#)
        XCTAssertEqual(problems, [#"p.json: sources[0].token: give either "token" or "username", not both"#])
    }

    func testSecretsAreNeverShown() throws {
        let (config, _) = try decode(#"{"token": "${API_TOKEN}", "password": "${PASS}", "username": "me", "headers": {"X-Key": "k"}, "count": 7}"#,
                                     env: ["API_TOKEN": "tok-123", "PASS": "pw-456"])
        XCTAssertEqual(config.token?.reveal(), "tok-123", "${ENV} is read into the secret")
        XCTAssertEqual(config.auth.access.credentials.password, "pw-456")
        XCTAssertEqual("\(config.token!)", "<redacted>")
        XCTAssertEqual(String(reflecting: config.token!), "<redacted>")
        let shown = JSONWriter(pretty: false).string(Sample.options.describe(config))
        XCTAssertEqual(shown, #"{"count":7,"token":"<redacted>","headers":"<redacted>","username":"me","password":"<redacted>"}"#)
        XCTAssertFalse("\(config)".contains("tok-123"), "the config's own description hides the token")
        let docs = Sample.options.docs
        XCTAssertEqual(docs.first { $0.name == "token" }?.isSecret, true)
        XCTAssertNil(docs.first { $0.name == "token" }?.defaultJSON)
    }

    func testDocsCarryJSONDefaultsBoundsAndNestedMembers() {
        let docs = Dictionary(uniqueKeysWithValues: Sample.options.docs.map { ($0.name, $0) })
        XCTAssertEqual(docs["count"]?.defaultJSON, .number(3))
        XCTAssertEqual(docs["count"]?.defaultValue, "3")
        XCTAssertEqual(docs["count"]?.minimum, 1)
        XCTAssertEqual(docs["count"]?.maximum, 100)
        XCTAssertEqual(docs["every"]?.defaultJSON, .string("1d"))
        XCTAssertEqual(docs["budget"]?.defaultJSON, .string("10MB"))
        XCTAssertEqual(docs["order"]?.values, ["oldest", "newest"])
        XCTAssertEqual(docs["order"]?.defaultJSON, .string("oldest"))
        XCTAssertEqual(docs["enabled"]?.defaultJSON, .bool(false))
        XCTAssertEqual(docs["tags"]?.defaultJSON, .array([]))
        XCTAssertNil(docs["file"]?.defaultJSON, "an optional option has no default")
        XCTAssertEqual(docs["netrc"]?.defaultJSON, .bool(true), "an included set's docs come with its defaults")
        XCTAssertEqual(docs["window"]?.kind, .object)
        XCTAssertEqual(docs["window"]?.members?.map(\.name), ["from", "days"])
        XCTAssertEqual(docs["window"]?.members?.last?.defaultJSON, .number(7))
    }

    /// A plugin declared with a config gets its options through the loader, `${ENV}` expanded, and the schema and
    /// `calpipe plugins` docs from the same declaration.
    func testAPluginGetsItsDecodedOptionsThroughTheLoader() throws {
        final class Seen: @unchecked Sendable { var config: Sample? }
        let seen = Seen()
        final class Nothing: EventSource { func read(context: RunContext, emit: (Batch) throws -> Void) throws {} }
        var registry = PluginRegistry.standard
        registry.register(SourceDescriptor(type: "sample", kind: .source, summary: "a sample", options: Sample.self) { config, _ in
            seen.config = config
            return Nothing()
        })
        let loader = PipelineLoader(registry: registry, environment: ["TZ": "UTC", "TOKEN": "from-env"])
        let json = #"{"sources": [{"type": "sample", "token": "${TOKEN}", "name": "s", "window": {"from": "x"}}], "sinks": [{"type": "json", "path": "o.json", "shape": "events"}]}"#
        _ = try loader.load(json: try JSONParser.parse(json), file: "p.json", baseDirectory: URL(fileURLWithPath: "/tmp"))
        XCTAssertEqual(seen.config?.token?.reveal(), "from-env")
        XCTAssertEqual(seen.config?.window.from, "x")
        XCTAssertEqual(seen.config?.name, "s", "a source's own option wins over the common one of the same name")
        let plan = try loader.load(json: try JSONParser.parse(json), file: "p.json", baseDirectory: URL(fileURLWithPath: "/tmp")).planLines
        XCTAssertTrue(plan.contains(#"    1. sample s {"token":"<redacted>","window":{"from":"x"}}"#), plan.joined(separator: "\n"))
        XCTAssertTrue(plan.contains(#"    1. json o.json {"shape":"events"}"#), plan.joined(separator: "\n"))
        XCTAssertFalse(plan.joined().contains("from-env"), "the plan never shows a secret")

        let bad = #"{"sources": [{"type": "sample", "count": 500, "color": "nope", "window": {"form": "x"}}], "sinks": [{"type": "json", "path": "o.json", "shape": "events"}]}"#
        seen.config = nil
        XCTAssertThrowsError(try loader.load(json: try JSONParser.parse(bad), file: "p.json", baseDirectory: URL(fileURLWithPath: "/tmp"))) { error in
            XCTAssertEqual((error as? ConfigErrors)?.issues.map(\.description), [
                "p.json: sources[0].count: 500 is out of range (expected 1 to 100)",
                #"p.json: sources[0].window.form: unknown option (expected one of: from, days); did you mean "from"?"#,
                "p.json: sources[0].color: " + CSSColor.problem("nope"),
            ])
        }
        XCTAssertNil(seen.config, "make does not run when the options have problems")
    }
}
