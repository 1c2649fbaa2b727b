#if canImport(Glibc)
import Glibc
#endif
import Pipeline

/// What an `exec` plugin runs: the program (found at load, so a typo fails `calpipe validate`), its arguments,
/// its whole environment and its working folder. Nothing of calpipe's own environment reaches the program but the
/// variables its options list (`env`, and the names in `inherit_env`): a token meant for one plugin does not
/// leak into another's program.
struct ExecCommand: Sendable, Hashable {
    /// The program as the pipeline names it (`command[0]`), for messages.
    var program: String
    /// Its absolute path.
    var executable: String
    var arguments: [String]
    var environment: [String: String]
    var directory: String
    /// Seconds the program may run in all (`timeout`); nil: no limit.
    var timeout: Double?
    /// The plugin's name in messages: `exec "upper"`.
    var plugin: String

    /// The program as messages name it: the script an interpreter runs (`rooms.py` of `python3 rooms.py`), else
    /// the program's file name.
    var label: String {
        let script = arguments.first.flatMap { $0.hasPrefix("-") || !$0.contains(".") ? nil : $0 }
        return String((script ?? program).split(separator: "/").last ?? Substring(program))
    }

    /// An error about this program, one line: `exec "upper": python3 exited with status 1 (...)`.
    func failure(_ what: String) -> CalpipeError {
        CalpipeError("\(plugin): \(label) \(what)")
    }

    /// The program's path: `name` with a slash is a path (relative to `directory`); a bare name is looked up in
    /// the program's own PATH (its environment's, else calpipe's). Nil when there is no executable file there.
    static func locate(_ name: String, path: String?, directory: String) -> String? {
        if name.contains("/") {
            let full = name.hasPrefix("/") ? name : directory + "/" + name
            return access(full, X_OK) == 0 ? full : nil
        }
        for folder in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") where !folder.isEmpty {
            let full = folder.hasPrefix("/") ? "\(folder)/\(name)" : "\(directory)/\(folder)/\(name)"
            var info = stat()
            if stat(full, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(full, X_OK) == 0 { return full }
        }
        return nil
    }
}

extension ExecCommand {
    /// The options every `exec` plugin takes (the source, the stage and the sink alike).
    public struct Options: OptionConfig {
        public var command: [String] = []
        public var env: [(key: String, value: String)] = []
        public var inheritEnv = ["PATH"]
        public var workingDirectory: OptionPath?
        public var timeout: Duration = .seconds(300)

        public init() {}

        public static let options = OptionSpec<Options> {
            Key("command", \.command, .strings, required: true,
                "the program and its arguments: [\"python3\", \"rooms.py\", \"--week\"]; a bare name is looked up in the program's PATH, a path is relative to the pipeline file")
            Key("env", \.env, .stringMap, "variables the program gets ({\"TOKEN\": \"${ROOMS_TOKEN}\"}); nothing else of calpipe's environment reaches it but inherit_env")
            Key("inherit_env", \.inheritEnv, .strings, "names of calpipe's own variables passed on as they are")
            Key("working_directory", \.workingDirectory, .path, "the program's working folder", default: "the pipeline file's folder")
            Key("timeout", \.timeout, .duration, "how long the program may run in all before it is stopped and the run fails (\"0s\": no limit)")
        }

        public mutating func validate(_ context: OptionContext<Options>) {
            if context.isGiven(\.command), command.first?.isEmpty ?? true {
                context.report(\.command, "expected the program and its arguments, such as [\"python3\", \"stage.py\"]")
            }
        }
    }

    /// The command from a plugin's decoded options; a program that is not there is reported at `command`.
    static func make(_ options: Options, context: OptionContext<Options>, plugin: String) throws -> ExecCommand {
        let environment = context.environment
        var variables: [String: String] = [:]
        for name in options.inheritEnv {
            if let value = environment.environment[name] { variables[name] = value }
        }
        for (name, value) in options.env { variables[name] = value }
        let directory = options.workingDirectory?.resolved ?? environment.baseDirectory.path
        let program = options.command[0]
        guard let executable = locate(program, path: variables["PATH"], directory: directory) else {
            let searched = program.contains("/") ? "at \(program) (from \(environment.displayPath(directory)))"
                : "on the program's PATH (\(variables["PATH"] ?? "not set; add \"PATH\" to inherit_env"))"
            throw context.error(\.command, "no executable program \"\(program)\" \(searched)")
        }
        let seconds = Double(options.timeout.components.seconds) + Double(options.timeout.components.attoseconds) / 1e18
        return ExecCommand(program: program, executable: executable, arguments: Array(options.command.dropFirst()), environment: variables,
                           directory: directory, timeout: seconds == 0 ? nil : seconds, plugin: plugin)
    }
}
