import Foundation
import Pipeline
import XCTest

/// `calpipe agenda` as a person sees it: the real binary on a pseudo-terminal of 60 and 120 columns
/// (Tests/HTMLTests/agenda_pty.py), and through a pipe.
final class AgendaTerminalTests: XCTestCase {
    static var binary: URL {
        let bundle = Bundle(for: AgendaTerminalTests.self).bundleURL
        for folder in [bundle, bundle.deletingLastPathComponent()] {
            let candidate = folder.appendingPathComponent("calpipe")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return bundle.appendingPathComponent("calpipe")
    }

    static let demo = HTMLTestSupport.root.appendingPathComponent("pipelines/demo.json").path
    static let week = ["--from", "2026-10-19", "--to", "2026-10-26"]

    /// Runs `calpipe ARGS` on a terminal of `columns` columns; returns what it printed.
    func onTerminal(_ columns: Int, _ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let python = try HTMLTestSupport.requireTool("python3")
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = nil
        env["TERM"] = "xterm-256color"
        env["TZ"] = "Europe/Berlin"
        env["COLUMNS"] = nil
        for (k, v) in environment { env[k] = v }
        let result = try HTMLTestSupport.run(python, [HTMLTestSupport.testsFolder.appendingPathComponent("agenda_pty.py").path, String(columns),
                                                      Self.binary.path] + arguments, environment: env)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.text
    }

    static func plain(_ text: String) -> String {
        text.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
    }

    /// The demo's entries of the week, as (day, title) in agenda order, from a pipeline run in the test.
    func demoEntries() throws -> [(String, String)] {
        let folder = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rendered = try HTMLTestSupport.renderDemo(into: folder, window: ("2026-10-19", "2026-10-26"))
        return rendered.days.sorted(by: DayEntry.agendaOrder).map { ($0.day.iso8601, $0.event.title ?? "(no title)") }
    }

    func checkFits(_ text: String, _ columns: Int, file: StaticString = #filePath, line: UInt = #line) {
        for l in Self.plain(text).split(separator: "\n", omittingEmptySubsequences: false) {
            XCTAssertLessThanOrEqual(l.unicodeScalars.count, columns, "too wide: \(l)", file: file, line: line)
        }
    }

    func testPipelineAgendaAt60And120Columns() throws {
        let entries = try demoEntries()
        XCTAssertGreaterThan(entries.count, 8)
        for columns in [60, 120] {
            let text = try onTerminal(columns, ["agenda", Self.demo] + Self.week)
            XCTAssertTrue(text.contains("\u{1B}["), "colours on a terminal")
            checkFits(text, columns)
            let plain = Self.plain(text)
            // Every day of the range has a header, empty days included, in order.
            let headers = plain.split(separator: "\n").filter { !$0.hasPrefix(" ") }.map { String($0) }
            XCTAssertEqual(headers.count, 7, headers.joined(separator: "\n"))
            XCTAssertTrue(headers[0].hasPrefix("Monday, October 19, 2026"), headers[0])
            XCTAssertTrue(headers[6].hasPrefix("Sunday, October 25, 2026"), headers[6])
            XCTAssertTrue(headers.allSatisfy { $0.contains("°") }, "weather on the days with entries: \(headers)")
            // Every entry under its day, in order (titles may be shortened with "…" on narrow terminals).
            var position = plain.startIndex
            for (_, title) in entries {
                let probe = String(title.prefix(20))
                guard let found = plain.range(of: probe, range: position..<plain.endIndex) else {
                    XCTFail("\(columns) columns: \(title) missing or out of order"); continue
                }
                position = found.upperBound
            }
            if columns == 120 {
                XCTAssertTrue(plain.contains("  ● 09:00 45m    Architecture sync · Room Spree, Alexanderplatz 1, Berlin\n"), plain)
                // The weather right-aligned: the header is exactly as wide as the terminal.
                let tuesday = "Tuesday, October 20, 2026", weather = "Overcast  27%  7° / 1°"
                XCTAssertTrue(headers.contains(tuesday + String(repeating: " ", count: 120 - tuesday.count - weather.count) + weather), "\(headers)")
            } else {
                XCTAssertTrue(plain.contains("  ● 09:00 45m    Architecture sync\n                 Room Spree, Alexanderplatz 1, Berlin\n"), plain)
            }
        }
    }

    func testColoursFollowNoColorAndTheColorOption() throws {
        let arguments = ["agenda", Self.demo, "--from", "2026-10-22", "--to", "2026-10-23"]
        let coloured = try onTerminal(80, arguments)
        XCTAssertTrue(coloured.contains("\u{1B}[38;2;229;57;53m●"), "the event's #E53935 as a 24-bit colour: \(coloured)")
        let noColor = try onTerminal(80, arguments, environment: ["NO_COLOR": "1"])
        XCTAssertFalse(noColor.contains("\u{1B}"))
        XCTAssertEqual(noColor, Self.plain(coloured))
        XCTAssertTrue(try onTerminal(80, arguments + ["--color", "always"], environment: ["NO_COLOR": "1"]).contains("\u{1B}["))
        XCTAssertFalse(try onTerminal(80, arguments + ["--color", "never"]).contains("\u{1B}"))
        // Through a pipe (not a terminal): no colours, 80 columns unless told.
        let piped = try HTMLTestSupport.run(Self.binary.path, arguments + ["--width", "60"], environment: ["TZ": "Europe/Berlin", "PATH": "/usr/bin:/bin"])
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertFalse(piped.text.contains("\u{1B}"))
        XCTAssertTrue(piped.text.hasPrefix("Thursday, October 22, 2026"), piped.text)
        checkFits(piped.text, 60)
    }

    /// The same agenda from the database the sqlite sink wrote.
    func testDatabaseAgenda() throws {
        let folder = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.demo))) as! [String: Any]
        let db = folder.appendingPathComponent("agenda.sqlite")
        object["sinks"] = [["type": "sqlite", "path": db.path]]
        object["sources"] = [["type": "json", "name": "sample", "path": HTMLTestSupport.root.appendingPathComponent("data/agenda.json").path]]
        object["stages"] = [["type": "expand"], ["type": "split"],
                            ["type": "forecast", "provider": "file", "path": HTMLTestSupport.root.appendingPathComponent("data/forecast-sample.json").path]]
        let pipeline = folder.appendingPathComponent("p.json")
        try JSONSerialization.data(withJSONObject: object).write(to: pipeline)
        let run = try HTMLTestSupport.run(Self.binary.path, ["run", pipeline.path, "--quiet"], environment: ["TZ": "Europe/Berlin", "HOME": folder.path])
        XCTAssertEqual(run.status, 0, run.stderr)

        let entries = try demoEntries()
        for columns in [60, 120] {
            let text = try onTerminal(columns, ["agenda", db.path] + Self.week)
            checkFits(text, columns)
            let plain = Self.plain(text)
            let fromPipeline = Self.plain(try onTerminal(columns, ["agenda", Self.demo] + Self.week))
            XCTAssertEqual(plain, fromPipeline, "the database's agenda reads like the pipeline's")
            XCTAssertTrue(entries.allSatisfy { plain.contains(String($0.1.prefix(20))) })
        }
    }

    /// `calpipe convert` picks the page by the output's extension, and expands and splits for it.
    func testConvertToAPage() throws {
        let folder = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("week.html")
        let result = try HTMLTestSupport.run(Self.binary.path, ["convert", HTMLTestSupport.root.appendingPathComponent("data/agenda.json").path,
                                                                "-o", page.path, "--from", "2026-10-19", "--to", "2026-10-26", "--tz", "Europe/Berlin", "--quiet"],
                                             environment: ["TZ": "Europe/Berlin", "HOME": folder.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let checked = try HTMLTestSupport.checkPage(page)
        XCTAssertEqual(checked["errors"] as? [String], [])
        let sections = try XCTUnwrap(checked["sections"] as? [[String: Any]])
        XCTAssertEqual(sections.map { $0["id"] as? String }, (19...25).map { "d-2026-10-\($0)" })
        let titles = sections.flatMap { $0["titles"] as! [String] }
        XCTAssertEqual(titles, try demoEntries().map(\.1))
    }
}
