/// A `path` option: as written in the pipeline file, resolved against the file's folder, and as messages name it.
public struct OptionPath: Sendable, Hashable, CustomStringConvertible {
    /// As written ("out/agenda.json", "-", "~/x.ics").
    public var written: String
    /// Absolute (or "-"): what to open.
    public var resolved: String
    /// For messages, usable from the current folder (`PipelineEnvironment.displayPath`).
    public var label: String

    /// An empty path (an option's default before it is read).
    public init() {
        self.init(written: "", resolved: "", label: "")
    }

    public init(written: String, resolved: String, label: String) {
        self.written = written
        self.resolved = resolved
        self.label = label
    }

    /// A path written in a pipeline, resolved in its environment.
    public init(_ written: String, in environment: PipelineEnvironment) {
        self.init(written: written, resolved: environment.resolve(path: written), label: environment.displayPath(written))
    }

    public var isEmpty: Bool { written.isEmpty }
    /// Standard input or output.
    public var isStandardStream: Bool { written == "-" }
    public var description: String { label }
}
