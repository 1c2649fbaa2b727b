/// A problem in a pipeline file: which file, where in it (a JSON path such as `sinks[0].shape`), and what was expected.
public struct ConfigIssue: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var path: String
    public var message: String

    public init(file: String, path: String, message: String) {
        self.file = file
        self.path = path
        self.message = message
    }

    /// `pipelines/team.json: stages[2].provider: unknown provider "openmeteo" (known: open-meteo, metno, file)`.
    public var description: String {
        path.isEmpty ? "\(file): \(message)" : "\(file): \(path): \(message)"
    }
}

/// All problems found while reading a pipeline file; reading goes on after each so they are reported together.
public struct ConfigErrors: Error, Sendable, CustomStringConvertible {
    public var issues: [ConfigIssue]

    public init(_ issues: [ConfigIssue]) {
        self.issues = issues
    }

    public var description: String { issues.map(\.description).joined(separator: "\n") }
}

/// Collects issues while options are decoded. One per pipeline file being read.
public final class ConfigDiagnostics {
    public let file: String
    public private(set) var issues: [ConfigIssue] = []

    public init(file: String) {
        self.file = file
    }

    /// Adds an issue; a second one for the same path is dropped (the first says what is wrong there).
    public func add(_ path: String, _ message: String) {
        if !path.isEmpty, issues.contains(where: { $0.path == path }) { return }
        issues.append(ConfigIssue(file: file, path: path, message: message))
    }
}

/// Thrown by a plugin's factory when its options had problems that were already reported to the diagnostics.
public struct OptionsRejected: Error {
    public init() {}
}
