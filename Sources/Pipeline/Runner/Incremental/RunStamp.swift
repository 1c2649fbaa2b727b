import CalHash
import Foundation

/// A sink that writes whole files (a calendar, a days document, a page, a database): a run whose inputs and
/// pipeline did not change since the last one may keep them as they are (`RunStamp`).
public protocol FileOutputSink: Sink {
    /// The file written ("-": standard output, which cannot be kept).
    var outputPath: String { get }
}

/// A stage that reads outside data it can fingerprint (the forecast from a file): nil when it cannot tell whether
/// that data changed (a live forecast), which makes every run read and write everything.
public protocol FingerprintableStage: Stage {
    func stageFingerprint(context: RunContext) -> String?
}

/// What a whole run depends on, to tell whether anything changed since the last run that wrote every output:
/// calpipe's version, the pipeline as read (after `${ENV}` and `--set`), the zone, window and today, the run time
/// when `SOURCE_DATE_EPOCH` fixes it, each source's input files (size, time, inode) and each stage's outside data. When it is
/// what the last successful run recorded and every output file is still as that run left it, the run keeps the
/// outputs and reads nothing (docs/incremental.md). Kept in calpipe's state folder, never beside the user's files.
package struct RunStamp: Sendable, Hashable {
    package var parts: [String: String]
    /// Per source label, its input fingerprint.
    package var sources: [String: String]
    /// Per output file, its size, modification time and inode when the run that recorded the stamp finished.
    package var outputs: [String: String] = [:]
    /// When that run finished (UTC seconds).
    package var finishedAt: Int64 = 0
    /// The warnings that run printed (a kept run does not print them again).
    package var warnings = 0
    /// Source labels as messages show them (not recorded).
    package var shown: [String: String] = [:]

    /// The stamp of this run, or why there can be none (the summary's words: "the json sink writes to standard
    /// output").
    package static func make(_ pipeline: PipelineDefinition, sinks: [any Sink], context: RunContext) -> Result<RunStamp, Reason> {
        guard let document = pipeline.documentFingerprint else { return .failure(Reason("the pipeline was not read from a file")) }
        var outputs: [String: String] = [:]
        for (i, sink) in sinks.enumerated() {
            let type = i < pipeline.sinkTypes.count ? pipeline.sinkTypes[i] : sink.label
            guard let file = sink as? any FileOutputSink else { return .failure(Reason("the \(type) sink does not write a file")) }
            if file.outputPath == "-" { return .failure(Reason("the \(type) sink writes to standard output")) }
            outputs[file.outputPath] = ""
        }
        var stageParts: [String] = []
        for (i, stage) in pipeline.stages.enumerated() {
            let type = i < pipeline.stageTypes.count ? pipeline.stageTypes[i] : pipeline.stageLabels[i]
            if let fingerprinted = stage as? any FingerprintableStage {
                guard let fingerprint = fingerprinted.stageFingerprint(context: context) else {
                    return .failure(Reason("the \(type) stage reads live data"))
                }
                stageParts.append(fingerprint)
            } else if stage is any DeterministicStage {
                stageParts.append("")
            } else {
                return .failure(Reason("the \(type) stage is not known to give the same output for the same input"))
            }
        }
        var sources: [String: String] = [:]
        var shown: [String: String] = [:]
        for (i, source) in pipeline.sources.enumerated() {
            let label = pipeline.sourceLabels[i]
            guard let fingerprinted = source as? any FingerprintableSource else {
                return .failure(Reason("source \(label) cannot tell whether it changed"))
            }
            context.runState.currentSourceLabel = label
            defer { context.runState.currentSourceLabel = nil }
            // Files by their size, time and inode (not their bytes: reading a large feed twice would cost a tenth of a run).
            let cheap = (source as? any InputSpecSource).map { spec in Result { try spec.input.statFingerprint(context: context) } }
            guard let fingerprint = try? (cheap?.get() ?? fingerprinted.inputFingerprint(context: context)) else {
                return .failure(Reason("source \(label) cannot tell whether it changed (standard input, or it cannot be read)"))
            }
            sources[label] = fingerprint
            shown[label] = pipeline.shownSourceName(i)
        }
        let env = context.environment
        var parts = [
            "calpipe": CalpipeVersion.current,
            "pipeline": document,
            "zone": env.zone.identifier,
            "window": IncrementalConfig.windowText(env.window),
            "today": env.today.iso8601,
            "stages": stageParts.joined(separator: "\n"),
        ]
        if env.environment["SOURCE_DATE_EPOCH"] != nil { parts["now"] = String(env.now) }
        var stamp = RunStamp(parts: parts, sources: sources)
        stamp.outputs = outputs
        stamp.shown = shown
        return .success(stamp)
    }

    /// Why there is no stamp, in the summary's words.
    package struct Reason: Error, Sendable, Hashable {
        package var text: String
        init(_ text: String) { self.text = text }
    }

    /// nil when nothing changed since `previous` (inputs, pipeline and every output file); else what did, first
    /// thing first: "feeds/team.ics changed", "the pipeline changed", "out/agenda.json was changed or removed".
    package func change(since previous: RunStamp) -> String? {
        if previous.parts["calpipe"] != parts["calpipe"] { return "calpipe's version changed" }
        if previous.parts["pipeline"] != parts["pipeline"] { return "the pipeline changed" }
        if previous.parts["zone"] != parts["zone"] { return "the time zone changed" }
        if previous.parts["window"] != parts["window"] { return "the window changed" }
        if previous.parts["today"] != parts["today"] { return "the day changed (today is \(parts["today"] ?? "?"))" }
        if previous.parts["now"] != parts["now"] { return "the run time (SOURCE_DATE_EPOCH) changed" }
        for label in sources.keys.sorted() where previous.sources[label] != sources[label] { return "\(shown[label] ?? label) changed" }
        if Set(previous.sources.keys) != Set(sources.keys) { return "the sources changed" }
        if previous.parts["stages"] != parts["stages"] { return "a stage's data changed" }
        if Set(previous.outputs.keys) != Set(outputs.keys) { return "the outputs changed" }
        for path in outputs.keys.sorted() where Self.fileState(path) != previous.outputs[path] {
            return "\(FileProblem.display(path)) was changed or removed"
        }
        return nil
    }

    /// Size, modification time and inode of a file ("" when it does not exist).
    static func fileState(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return "" }
        return "\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec):\(info.st_ino)"
    }

    /// The stamp with its outputs as they are now, to record after a run that wrote them.
    package func recording(finishedAt: Int64, warnings: Int) -> RunStamp {
        var copy = self
        for path in outputs.keys { copy.outputs[path] = Self.fileState(path) }
        copy.finishedAt = finishedAt
        copy.warnings = warnings
        return copy
    }

    // MARK: The file

    /// The stamp file of a pipeline file: `NAME.HASH.json` in `$CALPIPE_STATE`, else `$XDG_STATE_HOME/calpipe/runs`,
    /// else `~/.local/state/calpipe/runs`.
    package static func path(for pipelineFile: String, environment: [String: String]) -> String? {
        let folder: String
        if let explicit = environment["CALPIPE_STATE"], explicit.hasPrefix("/") {
            folder = explicit
        } else if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            folder = state + "/calpipe/runs"
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            folder = home + "/.local/state/calpipe/runs"
        } else {
            return nil
        }
        let absolute = FileProblem.absolutePath(pipelineFile)
        let name = URL(fileURLWithPath: absolute).lastPathComponent
        return folder + "/" + name + "." + SHA256.hex(of: Array(absolute.utf8)).prefix(16) + ".json"
    }

    /// The recorded stamp, or nil (none, or unreadable: the run then reads everything).
    package static func load(_ path: String) -> RunStamp? {
        guard let data = FileManager.default.contents(atPath: path), let value = try? JSONParser.parse(String(decoding: data, as: UTF8.self)),
              let object = value.objectValue, object["version"]?.numberValue == 1 else { return nil }
        func map(_ key: String) -> [String: String] {
            var out: [String: String] = [:]
            for (k, v) in object[key]?.objectValue?.members ?? [] { if let s = v.stringValue { out[k] = s } }
            return out
        }
        var stamp = RunStamp(parts: map("parts"), sources: map("sources"))
        stamp.outputs = map("outputs")
        stamp.finishedAt = Int64(object["finished_at"]?.numberValue ?? 0)
        stamp.warnings = Int(object["warnings"]?.numberValue ?? 0)
        return stamp
    }

    /// Writes the stamp atomically (the folder is made when missing). Best effort: a stamp that cannot be written
    /// only means the next run reads everything.
    package func save(to path: String) {
        func object(_ map: [String: String]) -> JSONValue {
            .object(JSONObject(map.keys.sorted().map { (key: $0, value: JSONValue.string(map[$0]!)) }))
        }
        let document = JSONValue.object(JSONObject([
            ("version", .number(1)), ("finished_at", .number(Double(finishedAt))), ("warnings", .number(Double(warnings))),
            ("parts", object(parts)), ("sources", object(sources)), ("outputs", object(outputs)),
        ]))
        guard let file = try? AtomicFile(path: path) else { return }
        do {
            try file.write(JSONWriter(pretty: true).string(document) + "\n")
            try file.commit()
        } catch {
            file.abort()
        }
    }
}
