import Pipeline

/// The enrichment stages this module provides, for the standard registry (CalpipeKit).
///
/// A separate target (not a folder in Pipeline) because enrichment needs the network and a persistent cache:
/// it depends on `Fetch` (URLSession from FoundationNetworking, and SQLite through CalSQLite). Keeping it out
/// of Pipeline leaves the core free of networking and C libraries, so the core builds and tests alone and a
/// build without enrichers needs neither.
package enum EnricherPlugins {
    package static var all: [StageDescriptor] {
        [ForecastStage.descriptor]
    }
}
