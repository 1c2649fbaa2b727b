import CalHash
import Foundation

/// Reads and validates a pipeline file, builds its plugins from the registry, and reports every problem
/// it finds (not just the first) with the file and JSON path.
public struct PipelineLoader {
    public var registry: PluginRegistry
    public var environment: [String: String]
    public var zones: ZoneDatabase
    public var now: Date
    /// Installed in the pipeline environment for URL inputs.
    package var fetcher: (any RemoteFetcher)?
    /// `--set KEY=VALUE` overrides, put into the file's document (in order) before it is read.
    package var overrides: [PipelineOverride] = []

    /// The keys a pipeline file may have at its top level, declared once (for the checks and `calpipe schema`).
    public static let topLevelOptions: [OptionDoc] = [
        OptionDoc("name", "string", "the pipeline's name; shown in summaries and outputs", default: "the file's name"),
        OptionDoc("description", "string", "free text"),
        OptionDoc("timezone", "string", "the output zone (IANA name such as Europe/Berlin): days are split and windows read in it", default: "$TZ, then the system zone"),
        {
            var window = OptionDoc("window", "object", "from (inclusive) and to (exclusive): YYYY-MM-DD, today, today+Nd or today-Nw")
            window.members = WindowOptions.options.docs
            return window
        }(),
        {
            var location = OptionDoc("location", "object", "the default place for the forecast: {\"latitude\": 52.52, \"longitude\": 13.41} or {\"name\": \"Berlin\"}")
            location.members = LocationOptions.options.docs
            return location
        }(),
        OptionDoc("locale", "string", "the language of weekday names in exported days (en, de, fr_CA, ...)", default: "en"),
        OptionDoc("sources", "array", required: true, "where events come from, in order"),
        OptionDoc("stages", "array", "what happens to them, in order"),
        OptionDoc("sinks", "array", required: true, "where results go"),
        OptionDoc("rejected", "path", "a file that every rejected record is appended to, one JSON line each, with its reason, source, file, line and raw text (`--rejected` overrides it)"),
        {
            var serve = OptionDoc("serve", "object", "for calpipe serve: refresh (\"15m\"), token (\"${FEED_TOKEN}\") or public (true)")
            serve.members = ServeSettings.Options.options.docs
            return serve
        }(),
    ]
    public static var topLevelKeys: [String] { topLevelOptions.map(\.name) }

    public init(registry: PluginRegistry, environment: [String: String] = ProcessInfo.processInfo.environment,
                zones: ZoneDatabase = ZoneDatabase(), now: Date = Date()) {
        self.registry = registry
        self.environment = environment
        self.zones = zones
        self.now = now
    }

    /// Loads a pipeline file. Throws `ConfigErrors` listing every problem.
    public func load(file: String) throws -> PipelineDefinition {
        let bytes: [UInt8]
        do {
            bytes = try ChunkReader(path: file).readAll()
        } catch {
            throw ConfigErrors([CalpipeError.config(file: file, path: "", CalpipeError(error).message)])
        }
        var json: JSONValue
        do {
            json = try JSONParser.parse(bytes: bytes)
        } catch let e as JSONSyntaxError {
            throw ConfigErrors([CalpipeError.config(file: file, path: "", "\(e)")])
        }
        do {
            for override in overrides { json = try override.apply(to: json) }
        } catch {
            throw ConfigErrors([error])
        }
        let base = URL(fileURLWithPath: file).deletingLastPathComponent()
        return try load(json: json, file: file, baseDirectory: base)
    }

    /// Builds a pipeline from an already parsed document (also used by `calpipe convert`). `defaultName` names a
    /// pipeline without a `"name"` (default: the file's name without its extension).
    public func load(json: JSONValue, file: String, baseDirectory: URL, defaultName: String? = nil) throws -> PipelineDefinition {
        let diagnostics = ConfigDiagnostics(file: file)
        guard case .object(let rawRoot) = json else {
            throw ConfigErrors([CalpipeError.config(file: file, path: "", "expected a JSON object at the top level, got \(json.kindDescription)")])
        }
        guard case .object(let root) = EnvironmentInterpolation.expand(.object(rawRoot), path: "", environment: environment, diagnostics: diagnostics) else {
            preconditionFailure("interpolation keeps the shape")
        }
        for key in root.keys where !Self.topLevelKeys.contains(key) {
            diagnostics.add(key, "unknown key (expected one of: \(Self.topLevelKeys.joined(separator: ", ")))" + Suggestion.hint(for: key, in: Self.topLevelKeys))
        }

        let top = PluginOptions(path: "", object: root, environment: placeholderEnvironment(file: file, base: baseDirectory), diagnostics: diagnostics)
        let writtenName = top.string("name")
        let name = writtenName ?? defaultName ?? URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        _ = top.string("description")
        let rejected = top.string("rejected").map { written in
            (path: top.environment.resolve(path: written), label: top.environment.displayPath(written))
        }
        var zone = zones.defaultZone(environment: environment)
        if let zoneName = top.string("timezone") {
            if let z = zones.zone(named: zoneName) { zone = z } else {
                diagnostics.add("timezone", "unknown time zone \"\(zoneName)\" (expected an IANA name such as \"Europe/Berlin\")"
                                + (zones.suggestion(for: zoneName).map { "; did you mean \"\($0)\"?" } ?? ""))
            }
        }
        let runTime = PipelineEnvironment.runTime(environment: environment, clock: now)
        // SOURCE_DATE_EPOCH fixes "now" for everything a run derives from it: time stamps, "today", relative windows.
        let today = PipelineEnvironment.today(in: zone, now: Date(timeIntervalSince1970: TimeInterval(runTime)))
        var locale = "en"
        if let text = top.string("locale") {
            if WeekdayNames.isKnown(text) { locale = text } else {
                diagnostics.add("locale", "unknown locale \"\(text)\" (expected a language code such as \"en\", \"de\" or \"fr_CA\")")
            }
        }
        var window: Window?
        if let value = root["window"] {
            let at = OptionInput(path: "window", environment: top.environment, diagnostics: diagnostics)
            if case .object(let object) = value {
                let options = WindowOptions.options.decode(object, at: at)
                window = options.window(today: today, context: OptionContext(input: at, object: object, names: WindowOptions.options.names))
            } else {
                at.wrongType(OptionKind.object.expectation, value)
            }
        }
        let serve = root["serve"].map { ServeSettings.read($0, at: OptionInput(path: "serve", environment: top.environment, diagnostics: diagnostics)) } ?? ServeSettings()
        if let location = root["location"] {
            if let object = location.objectValue {
                _ = LocationOptions.options.decode(object, at: OptionInput(path: "location", environment: top.environment, diagnostics: diagnostics))
            } else {
                diagnostics.add("location", "expected an object such as {\"latitude\": 52.52, \"longitude\": 13.41} or {\"name\": \"Berlin\"}, got \(location.kindDescription)")
            }
        }

        var env = PipelineEnvironment(pipelineFile: file, baseDirectory: baseDirectory, name: name, zone: zone, window: window,
                                      location: root["location"], environment: environment, zones: zones, today: today, now: runTime)
        env.fetcher = fetcher
        env.locale = locale
        env.nameWritten = writtenName != nil

        let builtSources = build(section: .source, root: root, required: true, env: env, diagnostics: diagnostics) { registry.source($0) }
        let builtStages = build(section: .stage, root: root, required: false, env: env, diagnostics: diagnostics) { registry.stage($0) }
        let builtSinks = build(section: .sink, root: root, required: true, env: env, diagnostics: diagnostics) { registry.sink($0) }
        let stages = builtStages.map(\.product)
        let sinks = builtSinks.map(\.product)
        let sources = builtSources.map(\.product)
        let labels = builtSources.map { built in
            built.object["name"]?.stringValue ?? built.object["path"]?.stringValue
                ?? built.object["url"]?.stringValue.map(URLRedaction.redact) ?? built.path
        }

        checkEventStageOrder(builtStages.map { ($0.product, $0.object, $0.path) }, diagnostics: diagnostics)

        // Sinks must get what they read.
        var produced: BatchContent = [.events, .occurrences]
        for stage in stages { produced.formUnion(stage.produces) }
        for (i, sink) in sinks.enumerated() where sink.needs.contains(.days) && !produced.contains(.days) {
            diagnostics.add("sinks[\(i)]", "this sink writes day entries, but no stage makes them (add {\"type\": \"split\"} to \"stages\")")
        }

        // A delta source sends changes and deletions only: a sink that writes whole files would lose the rest.
        for (i, source) in sources.enumerated() where source.feed == .delta {
            for (j, sink) in sinks.enumerated() where !sink.appliesDeletions {
                diagnostics.add("sources[\(i)]", PipelineDefinition.deltaFeedMessage(source: labels[i], sink: sink.label, sinkPath: "sinks[\(j)]"))
            }
        }

        if !diagnostics.issues.isEmpty { throw ConfigErrors(diagnostics.issues) }
        var definition = PipelineDefinition(environment: env, sources: sources, sourceLabels: labels, stages: stages,
                                            stageLabels: builtStages.map { $0.object["type"]?.stringValue ?? $0.path }, sinks: sinks)
        definition.serve = serve
        definition.sourceLabelIsPath = builtSources.map { $0.object["name"]?.stringValue == nil && $0.object["path"]?.stringValue != nil }
        definition.documentFingerprint = SHA256.hex(of: Array(JSONWriter(pretty: false).string(.object(root)).utf8))
        definition.allowEmpty = builtSources.map { $0.object["allow_empty"] == .bool(true) }
        // `color` is a common source option (`SourceCommonOptions`, checked with the source's own), read here rather than by each source.
        definition.sourceColors = builtSources.map { $0.object["color"]?.stringValue.flatMap { CSSColor.hex($0) } }
        definition.sourceNamed = builtSources.map { $0.object["name"]?.stringValue != nil }
        definition.configFingerprints = builtSources.map { built in
            IncrementalConfig.fingerprint(zone: zone, source: built.object, stages: builtStages.map(\.object))
        }
        definition.sourceTypes = builtSources.map { $0.object["type"]?.stringValue ?? "" }
        definition.stageTypes = builtStages.map { $0.object["type"]?.stringValue ?? "" }
        definition.sinkTypes = builtSinks.map { $0.object["type"]?.stringValue ?? "" }
        definition.rejectedFile = rejected
        definition.optionSummaries = (builtSources.map(\.options), builtStages.map(\.options), builtSinks.map(\.options))
        // Recurring events must not silently lose their later instances (issue 17): expand before split.
        if let note = definition.addExpandWhereNeeded(make: { makeDefaultStage("expand", env: env, file: file) }) {
            definition.notes.append(note)
        }
        return definition
    }

    /// A stage with its default options, for stages the loader adds.
    private func makeDefaultStage(_ type: String, env: PipelineEnvironment, file: String) -> (any Stage)? {
        guard let descriptor = registry.stage(type) else { return nil }
        let diagnostics = ConfigDiagnostics(file: file)
        let options = PluginOptions(path: "stages", object: JSONObject(), environment: env, diagnostics: diagnostics)
        return try? descriptor.make(options)
    }

    private func placeholderEnvironment(file: String, base: URL) -> PipelineEnvironment {
        PipelineEnvironment(pipelineFile: file, baseDirectory: base, name: "", zone: .utc, window: nil, environment: environment, zones: zones, today: CivilDate(daysSinceEpoch: 0))
    }

    private func build<Product>(section kind: PluginKind, root: JSONObject, required: Bool, env: PipelineEnvironment,
                                diagnostics: ConfigDiagnostics, lookup: (String) -> PluginDescriptor<Product>?) -> [(product: Product, object: JSONObject, path: String, options: JSONValue)] {
        let key = kind.section
        guard let value = root[key] else {
            if required { diagnostics.add(key, "missing (expected an array of \(kind.rawValue) objects, each with a \"type\")") }
            return []
        }
        guard case .array(let items) = value else {
            diagnostics.add(key, "expected an array of \(kind.rawValue) objects, got \(value.kindDescription)")
            return []
        }
        if required && items.isEmpty { diagnostics.add(key, "expected at least one \(kind.rawValue)") }
        var built: [(product: Product, object: JSONObject, path: String, options: JSONValue)] = []
        let known = registry.typeNames(kind)
        for (i, item) in items.enumerated() {
            let path = "\(key)[\(i)]"
            guard case .object(let object) = item else {
                diagnostics.add(path, "expected an object with a \"type\", got \(item.kindDescription)")
                continue
            }
            guard let typeValue = object["type"] else {
                diagnostics.add(path + ".type", "missing (expected one of: \(known.joined(separator: ", ")))")
                continue
            }
            guard case .string(let type) = typeValue else {
                diagnostics.add(path + ".type", "expected a string, got \(typeValue.kindDescription) \(typeValue.preview)")
                continue
            }
            guard let descriptor = lookup(type) else {
                if let trait = PluginRegistry.traitPlugins[type] {
                    diagnostics.add(path + ".type", "the \(type) \(kind.rawValue) is not in this build of calpipe: build it with swift build --traits \(trait)")
                    continue
                }
                diagnostics.add(path + ".type", "unknown \(kind.rawValue) type \"\(type)\" (known: \(known.joined(separator: ", ")))" + Suggestion.hint(for: type, in: known))
                continue
            }
            // The options are declared once, in the descriptor: decoded (and every problem reported) before `make`.
            let options = PluginOptions(path: path, object: object, environment: env, diagnostics: diagnostics)
            do {
                let (product, described) = try descriptor.makeDescribed(options)
                built.append((product, object, path, described))
            } catch let error as CalpipeError where error == .optionsRejected {
                continue
            } catch let issue as CalpipeError where issue.kind == .usage {
                diagnostics.add(issue.path ?? "", issue.message)
            } catch {
                diagnostics.add(path, CalpipeError(error).description)
            }
        }
        return built
    }
}
