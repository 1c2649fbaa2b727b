#if Postgres
import Foundation
import Pipeline

/// Several workers, one database: each of a run's sources is held by a transaction-level advisory lock
/// (`pg_try_advisory_xact_lock`) from the run's start to its commit or rollback, so two workers never sync the same
/// source at once; a killed worker's locks go with its connection. The key is 64 bits of FNV-1a (`StableHash`) of
/// the schema and the source's label: the rows' own key (a source's rows are keyed by its label, whatever pipeline
/// wrote them), so two pipelines naming the same source into one schema wait for each other too.
enum PostgresSourceLocks {
    static func key(_ kind: String, _ parts: String...) -> Int64 {
        Int64(bitPattern: StableHash.of((["calpipe", kind] + parts).joined(separator: "\u{1F}")))
    }

    /// Takes every source's lock, in key order (two workers never wait for each other in a circle). Another run
    /// holding one: waits up to `calpipe run --wait` seconds, else fails at once naming the source.
    static func acquire(_ sources: Set<String>, schema: String, link: PostgresLink, label: String, context: RunContext) throws {
        let keyed = sources.map { (key: key("source", schema, $0), source: $0) }.sorted { $0.key < $1.key }
        let deadline = Date().addingTimeInterval(context.runState.lockWaitSeconds)
        for (key, source) in keyed {
            while try link.rows("SELECT pg_try_advisory_xact_lock($1)::text", [.integer(key)]).first?.first != "true" {
                if Date() >= deadline {
                    throw CalpipeError("\(label): another calpipe run is writing source \"\(source)\" into schema \"\(schema)\"; nothing was written (calpipe run --wait SECONDS waits for it)")
                }
                try context.checkCancellation()
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
    }
}
#endif
