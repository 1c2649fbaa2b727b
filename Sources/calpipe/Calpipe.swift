import ArgumentParser
import Foundation
import Pipeline

@main
struct Calpipe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calpipe",
        abstract: "Move calendar data: import, expand, split into agenda days, enrich and export events.",
        discussion: """
            Exit codes: 0 done; 1 failed (no output left half-written); 2 usage or pipeline errors (nothing run); \
            3 finished, but some records were rejected (each is reported with its file and line or JSON path); \
            130 or 143 interrupted by SIGINT or SIGTERM (rolled back).

            Example:
              calpipe run pipelines/demo.json
            """,
        version: "0.1.0",
        subcommands: [Run.self, Validate.self, Convert.self, Plugins.self, Query.self]
    )

    /// Usage errors exit with 2 (not ArgumentParser's 64), so scripts see one code for "nothing was run".
    /// The subcommands' names, for "did you mean".
    static var commandNames: [String] {
        configuration.subcommands.map { $0.configuration.commandName ?? String(describing: $0).lowercased() } + ["help"]
    }

    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // Bare `calpipe` ran nothing: the help, on stderr, and the usage exit code.
        if arguments.isEmpty {
            Terminal.error(helpMessage())
            Foundation.exit(CalpipeExit.usage.rawValue)
        }
        if let first = arguments.first, !first.hasPrefix("-"), !commandNames.contains(first) {
            let known = commandNames.dropLast().joined(separator: ", ")
            Terminal.error("calpipe: unknown command \"\(first)\" (expected one of: \(known))" + Suggestion.hint(for: first, in: commandNames))
            Foundation.exit(CalpipeExit.usage.rawValue)
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            if let exit = error as? ExitCode { Foundation.exit(exit.rawValue) }
            if code == .validationFailure {
                Terminal.error(fullMessage(for: error))
                Foundation.exit(CalpipeExit.usage.rawValue)
            }
            Terminal.error("calpipe: error: " + fullMessage(for: error))
            Foundation.exit(CalpipeExit.failed.rawValue)
        }
    }
}
