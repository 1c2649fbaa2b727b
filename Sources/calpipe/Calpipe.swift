import ArgumentParser
import Foundation

@main
struct Calpipe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calpipe",
        abstract: "Move calendar data: import, expand, split into agenda days, enrich and export events.",
        discussion: """
            Exit codes: 0 done; 1 failed (no output left half-written); 2 usage or pipeline errors (nothing run);
            3 finished, but some records were rejected (each is reported with its file and line or JSON path).

            Example:
              calpipe run pipelines/demo.json
            """,
        version: "0.1.0",
        subcommands: [Run.self, Validate.self, Convert.self, Plugins.self, Query.self, Agenda.self]
    )

    /// Usage errors exit with 2 (not ArgumentParser's 64), so scripts see one code for "nothing was run".
    static func main() {
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
