import CalpipeKit
import CalSQLite
import Exporters
import Foundation
import Importers
import Pipeline
import XCTest

/// `calpipe run --shard K/N` (every source in exactly one shard, by a stable hash of its name; the sinks keep the
/// rows of the other shards' sources) and the one-line error for a postgres sink in a build without the trait.
final class ShardRunTests: XCTestCase {
    func testShardsSplitTheSourcesByAStableHash() throws {
        // FNV-1a 64 of the UTF-8 name and the byte 0xFF: fixed values, whatever the process or machine.
        XCTAssertEqual(StableHash.of(""), 0xaf64_724c_8602_eb6e)
        let names = (0..<200).map { "feed-\($0)" }
        for n in [1, 2, 3, 8] {
            var seen: [String: Int] = [:]
            for k in 1...n {
                let shard = PipelineShard(index: k, count: n)
                for name in names where shard.contains(name) { seen[name, default: 0] += 1 }
            }
            XCTAssertEqual(seen.count, names.count, "every source is in a shard of \(n)")
            XCTAssertTrue(seen.values.allSatisfy { $0 == 1 }, "and in one only")
        }
        XCTAssertEqual(try PipelineShard(parsing: "2/8"), PipelineShard(index: 2, count: 8))
        for bad in ["0/8", "9/8", "2", "a/b", "2/0"] {
            XCTAssertThrowsError(try PipelineShard(parsing: bad), bad)
        }
        XCTAssertEqual("\((try? PipelineShard(parsing: "9/8")).map { "\($0)" } ?? "")", "")
        do { _ = try PipelineShard(parsing: "9/8") } catch { XCTAssertEqual("\(error)", "--shard 9/8: K must be from 1 to 8") }
        do { _ = try PipelineShard(parsing: "x") } catch { XCTAssertEqual("\(error)", "--shard x: expected K/N, shard K of N, such as 2/8") }
    }

    func testShardRunsIntoOneSQLiteFileKeepTheOtherShardsRows() throws {
        let folder = try PostgresTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pipeline = folder.appendingPathComponent("p.json")
        let db = folder.appendingPathComponent("agenda.db")
        try PostgresTestSupport.writePipeline(pipeline, sources: PostgresTestSupport.demoSources, sinks: ["{ \"type\": \"sqlite\", \"path\": \"\(db.path)\" }"])
        let all = PostgresTestSupport.demoSources.map(\.name)
        let first = all.filter { PipelineShard(index: 1, count: 2).contains($0) }
        XCTAssertFalse(first.isEmpty)
        XCTAssertNotEqual(first.count, all.count, "the demo's sources fall in both shards")
        let r1 = try PostgresTestSupport.run(["run", pipeline.path, "--shard", "1/2"], in: folder)
        XCTAssertEqual(r1.code, 0, r1.stderr)
        XCTAssertTrue(r1.stderr.contains("shard 1/2: \(first.count) of \(all.count) sources: \(first.joined(separator: ", "))"), r1.stderr)
        XCTAssertEqual(try PostgresTestSupport.sqliteRows(db.path, "SELECT DISTINCT source FROM events ORDER BY 1").map { $0[0] }, first.sorted())
        let r2 = try PostgresTestSupport.run(["run", pipeline.path, "--shard", "2/2"], in: folder)
        XCTAssertEqual(r2.code, 0, r2.stderr)
        XCTAssertEqual(try PostgresTestSupport.sqliteRows(db.path, "SELECT DISTINCT source FROM events ORDER BY 1").map { $0[0] }, all.sorted())
        // Shard 1 again, in full: shard 2's rows stay as they are.
        let second = "SELECT * FROM events WHERE source NOT IN (\(first.map { "'\($0)'" }.joined(separator: ","))) ORDER BY id"
        let before = try PostgresTestSupport.sqliteRows(db.path, second)
        let again = try PostgresTestSupport.run(["run", pipeline.path, "--shard", "1/2", "--full"], in: folder)
        XCTAssertEqual(again.code, 0, again.stderr)
        XCTAssertEqual(try PostgresTestSupport.sqliteRows(db.path, second), before)
    }

    func testAPostgresSinkInABuildWithoutTheTraitSaysHowToBuildIt() throws {
        var registry = PluginRegistry()
        for descriptor in CoreStages.all { registry.register(descriptor) }
        for descriptor in SourcePlugins.all { registry.register(descriptor) }
        for descriptor in SinkPlugins.all { registry.register(descriptor) }
        let folder = try PostgresTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pipeline = folder.appendingPathComponent("p.json")
        try PostgresTestSupport.writePipeline(pipeline, sources: [PostgresTestSupport.demoSources[0]],
                                              sinks: ["{ \"type\": \"postgres\", \"connection\": \"postgres://u@127.0.0.1/db\" }"], forecast: false)
        let loader = PipelineLoader(registry: registry, environment: [:], now: Date(timeIntervalSince1970: 1_792_483_200))
        XCTAssertThrowsError(try loader.load(file: pipeline.path)) { error in
            XCTAssertEqual(CalpipeError.report(error).lines,
                           ["\(pipeline.path): sinks[0].type: the postgres sink is not in this build of calpipe: build it with swift build --traits Postgres"])
        }
    }
}
