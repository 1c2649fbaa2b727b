import Foundation

/// What a plugin keeps from one successful run to the next (a source's sync token, page cursor or ETags; a sink's
/// remote ETags): one JSON object per plugin name, per pipeline. A plugin reads the state the last successful run
/// committed with `RunContext.state(for:)` and proposes the next one with `RunContext.setState(_:for:)`; the
/// runner keeps proposals in memory and stores them only once every sink committed and nothing failed
/// (docs/architecture.md, "State for plugins").
public struct PluginState: Hashable, Sendable {
    /// The members, in the order the plugin set them.
    public var object: JSONObject

    public init(_ object: JSONObject = JSONObject()) {
        self.object = object
    }

    /// One member; nil removes it.
    public subscript(key: String) -> JSONValue? {
        get { object[key] }
        set { object[key] = newValue }
    }

    public var isEmpty: Bool { object.members.isEmpty }

    /// The state as a JSON value (an object).
    public var json: JSONValue { .object(object) }
}

/// The states of one run: what the last successful run committed (`prior`, empty under `--full`), what plugins
/// proposed during this run, and the plugins whose proposal must not be stored (a source whose rows were kept
/// or that had rejected records). Thread-safe: a sink may propose from the sinks' thread.
package final class PluginStateBook: @unchecked Sendable {
    private struct Values {
        var prior: [String: PluginState] = [:]
        var proposed: [String: PluginState] = [:]
        var held: Set<String> = []
    }
    private let values = Locked(Values())

    package init() {}

    package var prior: [String: PluginState] {
        get { values.withLock { $0.prior } }
        set { values.withLock { $0.prior = newValue } }
    }

    package func committed(for name: String) -> PluginState? { values.withLock { $0.prior[name] } }

    package func propose(_ state: PluginState, for name: String) { values.withLock { $0.proposed[name] = state } }

    /// This run's proposal for `name`, if any.
    package func proposal(for name: String) -> PluginState? { values.withLock { $0.proposed[name] } }

    /// The proposal of `name` is not stored (its source's rows were kept, or it had rejected records).
    package func hold(_ name: String) { _ = values.withLock { $0.held.insert(name) } }

    /// The proposals to store: every proposal but those held.
    package var approved: [String: PluginState] {
        values.withLock { v in v.proposed.filter { !v.held.contains($0.key) } }
    }

    /// The proposals to store after a run in which `failedRecords` records could not be written: all approved ones
    /// when none failed; else only the sinks' (`sinks`: their labels). A sink's state says what the server now holds
    /// (the ETags of what it wrote, the old one of what it could not), which is true whether or not other records
    /// failed; the sources' stay where they were, so the next run sends again what failed.
    package func storable(failedRecords: Int, sinks: Set<String>) -> [String: PluginState] {
        failedRecords == 0 ? approved : approved.filter { sinks.contains($0.key) }
    }
}

/// A sink that keeps the plugins' states in its own transaction, so that its data and the states cannot disagree
/// (the sqlite sink: table `plugin_state`). When a pipeline has one, the states live there and not in the state
/// folder (the first such sink in pipeline order).
package protocol PluginStateSink: Sink {
    /// The states the last successful run of `pipeline` committed: inside the sink's transaction once it is open,
    /// else read from its file without writing (empty when there is no file yet).
    func committedPluginStates(pipeline: String) throws -> [String: PluginState]
    /// States to write in the transaction `commit` commits (set by the runner just before the commit phase; nil:
    /// none).
    func stagePluginStates(_ states: [String: PluginState]?, pipeline: String)
    /// Writes states in a transaction of their own, after `commit` (when a remote sink commits after this one: a
    /// state must not advance before every sink committed).
    func savePluginStates(_ states: [String: PluginState], pipeline: String, context: RunContext) throws
}

/// The states of a pipeline without such a sink: one JSON file per pipeline file in calpipe's state folder,
/// written atomically (`AtomicFile`), beside the run stamp: `NAME.HASH.state.json` in `$CALPIPE_STATE`, else
/// `$XDG_STATE_HOME/calpipe/runs`, else `~/.local/state/calpipe/runs`.
package enum PluginStateFile {
    package static func path(for pipelineFile: String, environment: [String: String]) -> String? {
        guard let stamp = RunStamp.path(for: pipelineFile, environment: environment), stamp.hasSuffix(".json") else { return nil }
        return String(stamp.dropLast(".json".count)) + ".state.json"
    }

    /// The states in `path` (empty when there is no file). A file that cannot be read or is not calpipe's fails
    /// the run rather than starting over silently (`--full` does not read it, and its run writes it again).
    package static func load(_ path: String) throws -> [String: PluginState] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        let label = FileProblem.display(path)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CalpipeError("\(label): the plugins' state cannot be read (calpipe run --full starts it again)")
        }
        guard let value = try? JSONParser.parse(String(decoding: data, as: UTF8.self)), let object = value.objectValue,
              object["version"]?.numberValue == 1, let plugins = object["plugins"]?.objectValue else {
            throw CalpipeError("\(label): the plugins' state is not calpipe's state file (calpipe run --full starts it again)")
        }
        return try states(plugins, label: label)
    }

    /// The states of a `plugins` object (name: object).
    package static func states(_ plugins: JSONObject, label: String) throws -> [String: PluginState] {
        var out: [String: PluginState] = [:]
        for (name, value) in plugins.members {
            guard let object = value.objectValue else {
                throw CalpipeError("\(label): the state of \(name) is not a JSON object (calpipe run --full starts it again)")
            }
            out[name] = PluginState(object)
        }
        return out
    }

    /// The states as the `plugins` object: by name, sorted.
    package static func object(_ states: [String: PluginState]) -> JSONObject {
        JSONObject(states.keys.sorted().map { (key: $0, value: states[$0]!.json) })
    }

    /// Writes `states` atomically (the folder is made when missing); throws when it cannot.
    package static func save(_ states: [String: PluginState], pipeline: String, to path: String) throws {
        let document = JSONValue.object(JSONObject([
            ("version", .number(1)), ("pipeline", .string(pipeline)), ("plugins", .object(object(states))),
        ]))
        let file = try AtomicFile(path: path)
        do {
            try file.write(JSONWriter(pretty: true).string(document) + "\n")
            try file.commit()
        } catch {
            file.abort()
            throw error
        }
    }
}

extension PluginStateFile {
    /// Where `pipeline` keeps its states and what they are, without running it (`calpipe state`): the first sink that
    /// keeps them (its label), else the state file (nil: no state folder). The database wins when both exist.
    package static func stored(_ pipeline: PipelineDefinition, stateFile: String?) throws -> (store: String?, states: [String: PluginState]) {
        let name = Runner.statePipeline(pipeline.environment)
        if let keeper = pipeline.sinks.lazy.compactMap({ $0 as? any PluginStateSink }).first {
            return (keeper.label, try keeper.committedPluginStates(pipeline: name))
        }
        guard let stateFile else { return (nil, [:]) }
        return (stateFile, try load(stateFile))
    }

    /// The document `calpipe state` prints: `{"pipeline": ..., "store": ..., "plugins": {name: state, ...}}`.
    package static func document(_ pipeline: PipelineDefinition, stateFile: String?) throws -> JSONValue {
        let (store, states) = try stored(pipeline, stateFile: stateFile)
        return .object(JSONObject([
            ("pipeline", .string(Runner.statePipeline(pipeline.environment))),
            ("store", store.map { .string($0) } ?? .null),
            ("plugins", .object(object(states))),
        ]))
    }
}
