import CalSQLite
import Foundation
import XCTest

/// Kills real `calpipe run`s (SIGKILL and SIGTERM) at 20 moments drawn from a seeded generator, alternating
/// between two feeds, and checks after each kill that every output (a JSON days document, an ICS file, a
/// SQLite database) is whole: exactly the old run's or the new run's content. After SIGTERM no temporary file
/// is left and a rolled-back run left every output old; after SIGKILL the next run removes what the killed one
/// left behind. The moments depend on the seed and on how long a run takes here, so every kind of moment is
/// hit (start-up, reading, writing, the commit phase, after the end); the checks hold at any moment.
final class FaultInjectionTests: XCTestCase {
    /// Outputs carry the run's time (ICS DTSTAMP, generated_at): fixed, so two runs of one input are equal.
    static let fixedTime = ["SOURCE_DATE_EPOCH": "1795348800"]

    /// SplitMix64: a small seeded generator, so the moments are the same in every run of the test.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// What a finished run leaves: the bytes of the two files and the rows of the database.
    struct Outputs: Equatable {
        var days: Data?
        var ics: Data?
        var database: [String]
    }

    private var dir: URL!
    private let outputs = ["out/days.json", "out/agenda.ics", "out/agenda.sqlite"]

    /// A feed of `count` events: every tenth a weekly series, titles tagged with `version`; the two versions
    /// share most UIDs (updated rows), and each has UIDs of its own (added and removed rows).
    private func feed(version: String, count: Int = 150) -> String {
        var records: [String] = []
        for i in 0..<count {
            let uid = i % 7 == 0 ? "\(version)-only-\(i)" : "e\(i)"
            let day = 1 + i % 28
            let hour = 7 + i % 12
            var record = "{\"uid\": \"\(uid)\", \"title\": \"\(version) event \(i)\", \"location\": \"Room \(i % 5)\", "
            record += "\"start\": \"2026-11-\(day < 10 ? "0" : "")\(day)T\(hour < 10 ? "0" : "")\(hour):15:00\", \"timezone\": \"Europe/Berlin\", \"duration\": \"PT\(1 + i % 3)H\""
            if i % 10 == 0 { record += ", \"rrule\": \"FREQ=WEEKLY;COUNT=6\"" }
            records.append(record + "}")
        }
        return "[\n" + records.joined(separator: ",\n") + "\n]\n"
    }

    private func writePipeline(in folder: URL) throws {
        let pipeline = """
            { "name": "faults", "timezone": "Europe/Berlin", "window": { "from": "2026-11-01", "to": "2027-01-01" },
              "sources": [ { "type": "json", "name": "feed", "path": "feed.json" } ],
              "stages": [ { "type": "expand" }, { "type": "split" } ],
              "sinks": [ { "type": "json", "path": "out/days.json", "shape": "days" },
                         { "type": "ics", "path": "out/agenda.ics" },
                         { "type": "sqlite", "path": "out/agenda.sqlite" } ] }
            """
        try pipeline.write(to: folder.appendingPathComponent("pipeline.json"), atomically: true, encoding: .utf8)
    }

    private func read(in folder: URL) throws -> Outputs {
        let days = FileManager.default.contents(atPath: folder.appendingPathComponent(outputs[0]).path)
        let ics = FileManager.default.contents(atPath: folder.appendingPathComponent(outputs[1]).path)
        let database = try Database(path: folder.appendingPathComponent(outputs[2]).path)
        XCTAssertEqual(try database.integrityCheck(), ["ok"])
        let rows = try database.rows("""
            SELECT e.uid, e.title, d.day, d.start_local, d.part FROM day_entries d JOIN events e ON e.id = d.event_id
            ORDER BY e.uid, d.day, d.start_local
            """)
        return Outputs(days: days, ics: ics, database: rows.map { $0.map { "\($0)" }.joined(separator: "|") })
    }

    /// A complete run of `version` in a folder of its own: what the killed runs must leave, if not the old.
    private func reference(_ version: String) throws -> (Outputs, Double) {
        let folder = try TestSupport.temporaryDirectory()
        try writePipeline(in: folder)
        try feed(version: version).write(to: folder.appendingPathComponent("feed.json"), atomically: true, encoding: .utf8)
        let started = Date()
        let result = try CalpipeProcess.run(["run", "-q", "pipeline.json"], in: folder, environment: Self.fixedTime)
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(result.code, 0, result.stderr)
        return (try read(in: folder), seconds)
    }

    func testKilledRunsLeaveEachOutputOldOrNewAndNoTemporaryFile() throws {
        dir = try TestSupport.temporaryDirectory()
        try writePipeline(in: dir)
        let (outputsA, secondsA) = try reference("A")
        let (outputsB, secondsB) = try reference("B")
        XCTAssertNotEqual(outputsA.days, outputsB.days)
        XCTAssertNotEqual(outputsA.database, outputsB.database)
        let expected = ["A": outputsA, "B": outputsB]
        // A run into an existing database does more than the reference runs into new ones: aim past their time.
        let span = max(secondsA, secondsB) * 1.6

        // The starting point: A, complete.
        try feed(version: "A").write(to: dir.appendingPathComponent("feed.json"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try CalpipeProcess.run(["run", "-q", "pipeline.json"], in: dir, environment: Self.fixedTime).code, 0)
        var current = "A"
        var generator = SeededGenerator(state: 20261125)
        var seen: [String: Int] = [:]
        for moment in 0..<20 {
            let next = current == "A" ? "B" : "A"
            try feed(version: next).write(to: dir.appendingPathComponent("feed.json"), atomically: true, encoding: .utf8)
            let signal = moment % 2 == 0 ? SIGKILL : SIGTERM
            let delay = Double.random(in: 0..<span, using: &generator)
            let child = try CalpipeProcess(["run", "-q", "pipeline.json"], in: dir, environment: Self.fixedTime)
            Thread.sleep(forTimeInterval: delay)
            child.signal(signal)
            let result = child.finish()
            let what = "moment \(moment) (\(signal == SIGKILL ? "SIGKILL" : "SIGTERM") after \(String(format: "%.3f", delay)) s, \(current) -> \(next))"

            let after = try read(in: dir)
            // Each output is the old one or the new one, whole.
            for (name, keyPath) in [("days", \Outputs.days), ("ics", \Outputs.ics)] as [(String, KeyPath<Outputs, Data?>)] {
                XCTAssertTrue(after[keyPath: keyPath] == expected[current]![keyPath: keyPath] || after[keyPath: keyPath] == expected[next]![keyPath: keyPath],
                              "\(what): \(name) is neither the old nor the new output")
            }
            XCTAssertTrue(after.database == expected[current]!.database || after.database == expected[next]!.database,
                          "\(what): the database is neither the old nor the new content")

            func state(_ outputs: Outputs) -> String {
                outputs == expected[current]! ? "old" : outputs == expected[next]! ? "new" : "mixed"
            }
            if signal == SIGTERM {
                XCTAssertEqual(CalpipeProcess.temporaryFiles(under: dir), [], "\(what): SIGTERM left temporary files")
                switch result.code {
                case 143 where result.killedBySignal:
                    // The default action ended the process: either before calpipe installed its handler (the first
                    // milliseconds of the process: nothing began), or after the run ended and gave the signals back
                    // their default (`SignalWatch.stop()`), with every output written. Never anything in between.
                    let seenState = state(after)
                    XCTAssertTrue(seenState == "old" || seenState == "new", "\(what): killed by the signal, outputs \(seenState)")
                    if seenState == "new" { current = next }
                    seen[seenState == "old" ? "ended before the handler" : "ended after the run", default: 0] += 1
                case 143 where result.stderr.contains("rolled back"):
                    XCTAssertEqual(state(after), "old", "\(what): a rolled-back run changed an output")
                    seen["rolled back", default: 0] += 1
                case 143, 0:
                    // Ended (or past its point of no return) before the signal: everything is new.
                    XCTAssertEqual(state(after), "new", "\(what): exit \(result.code): \(result.stderr)")
                    current = next
                    seen[result.code == 0 ? "finished first" : "completed after the signal", default: 0] += 1
                default:
                    XCTFail("\(what): exit \(result.code): \(result.stderr)")
                }
            } else {
                seen["killed, \(state(after))", default: 0] += 1
                // The next run completes the change and leaves no temporary file of the killed one.
                let rerun = try CalpipeProcess.run(["run", "-q", "pipeline.json"], in: dir, environment: Self.fixedTime)
                XCTAssertEqual(rerun.code, 0, "\(what): the next run failed: \(rerun.stderr)")
                XCTAssertEqual(CalpipeProcess.temporaryFiles(under: dir), [], "\(what): a temporary file survived the next run")
                XCTAssertTrue(try read(in: dir) == expected[next]!, "\(what): the next run did not write the new outputs")
                current = next
            }
        }
        // Shown in the test log: which kinds of moments the seed hit on this machine.
        print("fault injection: \(seen.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")); span \(String(format: "%.2f", span)) s")
    }
}
