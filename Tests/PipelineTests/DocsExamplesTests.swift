import Foundation
import XCTest

/// Every calpipe command that README.md and docs/ show as an example runs as shown and succeeds: the lines of
/// their `sh` blocks and the inline code that starts with `calpipe ` or `swift run calpipe ` (commands with
/// placeholders such as PIPELINE or FILE, or options in brackets, are synopses, not examples). They run in order,
/// README first, in a copy of the repository's data, pipelines, docs and the feeds pipelines/merged-feeds.json reads, with the built binary as `calpipe`. A
/// feed the examples name but the repository does not ship (`team.ics`, a team's calendar) is the sample agenda
/// converted to iCalendar first.
final class DocsExamplesTests: XCTestCase {
    /// The examples of one Markdown file, in order.
    static func examples(in markdown: String) -> [String] {
        var commands: [String] = []
        var inBlock = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inBlock = !inBlock && ["```sh", "```bash", "```shell", "```console"].contains(line.trimmingCharacters(in: .whitespaces))
                continue
            }
            if inBlock {
                let command = line.components(separatedBy: "   #")[0].trimmingCharacters(in: .whitespaces)
                if command.hasPrefix("calpipe ") || command.hasPrefix("swift run calpipe ") { commands.append(command) }
                continue
            }
            for span in line.components(separatedBy: "`").enumerated().filter({ $0.offset % 2 == 1 }).map(\.element)
            where span.hasPrefix("calpipe ") || span.hasPrefix("swift run calpipe ") {
                commands.append(span)
            }
        }
        return commands.filter(isExample)
    }

    /// A command with a concrete argument: no placeholder word in capitals, no option in brackets or alternatives.
    static func isExample(_ command: String) -> Bool {
        let words = command.split(separator: " ").dropFirst(command.hasPrefix("swift run ") ? 3 : 1)
        guard words.count >= 1, !command.contains(" ["), !command.contains("\\|") else { return false }
        if words.contains(where: { $0.count >= 1 && $0.allSatisfy({ $0.isUppercase || $0 == "_" }) }) { return false }
        // A subcommand alone or with flags only is named, not shown: those that need an input are left out.
        let needsInput = ["run", "validate", "query", "agenda", "convert", "state", "serve"]
        if let sub = words.first, needsInput.contains(String(sub)), words.dropFirst().allSatisfy({ $0.hasPrefix("-") }) { return false }
        return true
    }

    func testEveryExampleInTheReadmeAndDocsRuns() throws {
        let root = TestSupport.repositoryRoot
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for folder in ["data", "pipelines", "docs", "Examples", "Tests/Fixtures/html"] {
            try FileManager.default.createDirectory(at: dir.appendingPathComponent(folder).deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: root.appendingPathComponent(folder), to: dir.appendingPathComponent(folder))
        }
        let bin = dir.appendingPathComponent(".bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: bin.appendingPathComponent("calpipe"), withDestinationURL: CLITests.binary)
        let environment = [
            "PATH": bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
            "SOURCE_DATE_EPOCH": "1795000000", "TZ": "Europe/Berlin", "CALPIPE_OFFLINE": "1",
            "CALPIPE_STATE": dir.appendingPathComponent(".state").path, "CALPIPE_LOCKS": dir.appendingPathComponent(".locks").path,
            "CALPIPE_CACHE": dir.appendingPathComponent(".cache/http.sqlite").path, "HOME": dir.path,
        ]
        func shell(_ command: String) throws -> CalpipeProcess.Result {
            try CalpipeProcess.run([], in: dir, environment: environment, prefix: ["sh", "-c", command + " </dev/null", "sh"])
        }
        // The team's feed some examples convert.
        XCTAssertEqual(try shell("calpipe convert data/agenda.json -o team.ics -q").code, 0)

        var files = ["README.md"]
        files += try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path).filter { $0.hasSuffix(".md") }.sorted()
            .map { "docs/" + $0 }
        var ran: [String] = []
        for file in files {
            let markdown = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for example in Self.examples(in: markdown) {
                let command = example.hasPrefix("swift run ") ? String(example.dropFirst("swift run ".count)) : example
                let result = try shell(command + " >/dev/null")
                XCTAssertEqual(result.code, 0, "\(file): \(example)\n\(result.stderr)")
                ran.append(example)
            }
        }
        // The ones this test exists for are among them.
        XCTAssertTrue(ran.contains("swift run calpipe run pipelines/demo.json"), "\(ran)")
        XCTAssertTrue(ran.contains("swift run calpipe query out/agenda.sqlite --day 2026-10-25 --days 3"), "\(ran)")
        XCTAssertGreaterThanOrEqual(ran.count, 8, "\(ran)")
    }

    func testPlaceholdersAreNotExamples() {
        XCTAssertFalse(Self.isExample("calpipe run PIPELINE [--dry-run]"))
        XCTAssertFalse(Self.isExample("calpipe query DB"))
        XCTAssertFalse(Self.isExample("calpipe run --full"))
        XCTAssertTrue(Self.isExample("calpipe plugins --json"))
        XCTAssertTrue(Self.isExample("calpipe run pipelines/demo.json --quiet"))
        XCTAssertEqual(Self.examples(in: "```sh\ncalpipe run a.json   # note\n```\nRun `calpipe schema` or `calpipe validate FILE`.\n"),
                       ["calpipe run a.json", "calpipe schema"])
    }
}
