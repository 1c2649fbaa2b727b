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
            130 and 143 interrupted by SIGINT or SIGTERM (everything rolled back).

            Example:
              calpipe run pipelines/demo.json
            """,
        version: CalpipeVersion.current,
        subcommands: [Run.self, Validate.self, Convert.self, Plugins.self, Schema.self, Query.self, Agenda.self, StateCommand.self, ServeCommand.self]
    )

    /// Usage errors exit with 2 (not ArgumentParser's 64), so scripts see one code for "nothing was run". Every
    /// other error is printed and given its exit code by `CalpipeError.report`, the one place that does it.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // Bare `calpipe` is a usage error: the help goes to standard error and nothing runs.
        if arguments.isEmpty {
            Terminal.error(helpMessage())
            Foundation.exit(ExitStatus.usage)
        }
        if let first = arguments.first, let message = unknownSubcommandMessage(first) {
            Terminal.error(message)
            Foundation.exit(ExitStatus.usage)
        }
        #if !Server
        // Whatever its arguments: the one thing to say is how to get a calpipe that serves.
        if arguments.first == "serve", !arguments.contains(where: { $0 == "--help" || $0 == "-h" }) {
            Terminal.error(ServeCommand.unavailable)
            Foundation.exit(ExitStatus.usage)
        }
        #endif
        var parsed: ParsableCommand.Type?
        do {
            var command = try parseAsRoot(arguments)
            parsed = type(of: command)
            try command.run()
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            if let exit = error as? ExitCode { Foundation.exit(exit.rawValue) }
            if code == .validationFailure {
                // A usage error found while a subcommand runs (not while its arguments were parsed) shows that
                // subcommand's usage, as ArgumentParser does for its own checks, not the top level's.
                if let parsed, parsed != Calpipe.self, let validation = error as? ValidationError {
                    Terminal.error(subcommandUsageError(validation.message, command: parsed))
                } else {
                    Terminal.error(fullMessage(for: error))
                }
                Foundation.exit(ExitStatus.usage)
            }
            let (lines, status) = CalpipeError.report(error)
            for line in lines { Terminal.error(line) }
            Foundation.exit(status)
        }
    }

    /// `Error: MESSAGE`, the subcommand's usage and where its help is, in ArgumentParser's layout.
    static func subcommandUsageError(_ message: String, command: ParsableCommand.Type) -> String {
        let name = command._commandName
        return "Error: \(message)\nUsage: \(usageString(for: command))\n  See 'calpipe \(name) --help' for more information."
    }

    /// `calpipe: unknown command "rnu" (expected one of: run, validate, ...); did you mean "run"?`, or nil when
    /// `word` is a subcommand, an option or `help`.
    static func unknownSubcommandMessage(_ word: String) -> String? {
        guard !word.hasPrefix("-"), word != "help" else { return nil }
        let names = configuration.subcommands.map { $0._commandName }
        guard !names.contains(word) else { return nil }
        return "calpipe: unknown command \"\(word)\" (expected one of: \(names.joined(separator: ", ")))" + Suggestion.hint(for: word, in: names)
    }
}
