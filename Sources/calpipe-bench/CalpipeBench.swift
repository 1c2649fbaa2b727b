import ArgumentParser

/// The benchmark tool. Each benchmark is a subcommand in its own file; add new ones to `subcommands`.
struct CalpipeBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calpipe-bench",
        abstract: "Print calpipe's speed figures. Build with -c release before trusting the numbers.",
        subcommands: [RRuleBenchmark.self, ExportBenchmark.self]
    )
}
