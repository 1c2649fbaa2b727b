/// All problems found while reading a pipeline file (each a `CalpipeError` of kind `.usage`: file, JSON path,
/// message); reading goes on after each so they are reported together, one a line, and calpipe exits with 2.
/// `pipelines/team.json: stages[2].provider: unknown provider "openmeteo" (known: open-meteo, metno, file)`.
public struct ConfigErrors: Error, Sendable, CustomStringConvertible {
    public var issues: [CalpipeError]

    public init(_ issues: [CalpipeError]) {
        self.issues = issues
    }

    public var description: String { issues.map(\.description).joined(separator: "\n") }
}

extension ConfigErrors: CalpipeErrorConvertible {
    public var calpipeError: CalpipeError { CalpipeError(description, kind: .usage, cause: self) }
}

/// Collects issues while options are decoded. One per pipeline file being read.
public final class ConfigDiagnostics {
    public let file: String
    public private(set) var issues: [CalpipeError] = []

    public init(file: String) {
        self.file = file
    }

    /// Adds an issue; a second one for the same path is dropped (the first says what is wrong there).
    public func add(_ path: String, _ message: String) {
        if !path.isEmpty, issues.contains(where: { $0.path == path }) { return }
        issues.append(CalpipeError.config(file: file, path: path, message))
    }

    /// Puts the issues added since `start` in the order of `rank` (of each issue's path), keeping the order of
    /// issues of equal rank.
    func order(since start: Int, by rank: (String) -> Int) {
        guard start < issues.count - 1 else { return }
        let ranked = issues[start...].enumerated().map { (rank: rank($0.element.path ?? ""), index: $0.offset, issue: $0.element) }
        issues.replaceSubrange(start..., with: ranked.sorted { ($0.rank, $0.index) < ($1.rank, $1.index) }.map(\.issue))
    }
}

extension CalpipeError {
    /// Thrown by a plugin's factory when its options had problems that were already reported to the diagnostics
    /// (the loader goes on with the next plugin and reports them all).
    public static let optionsRejected = CalpipeError("the options have problems, each reported with its JSON path", kind: .usage)
}
