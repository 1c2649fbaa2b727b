import Foundation

/// Where a file-reading source reads from: `"path"` (a file, a glob such as "data/*.ics", or "-" for stdin)
/// or `"url"` (`http://`, `https://`, `webcal://` read as https). Every file-reading source uses this, decoded
/// from the same options (`InputOptions`).
public struct InputSpec: Sendable, Hashable {
    public enum Location: Sendable, Hashable {
        /// A path or glob pattern, already resolved against the pipeline's folder; "-" is stdin.
        case path(String, written: String)
        case url(String)
    }

    public var location: Location
    /// Credentials and staleness limit for a `url` input.
    package var access: RemoteAccess

    public init(location: Location) {
        self.init(location: location, access: RemoteAccess())
    }

    package init(location: Location, access: RemoteAccess) {
        self.location = location
        self.access = access
    }

    /// One concrete input to read.
    public struct Input: Sendable, Hashable {
        /// The local file to read ("-" for stdin).
        public var path: String
        /// The name for messages: the path as the user can use it from the current folder
        /// (`PipelineEnvironment.displayPath`), or the URL.
        public var label: String
        /// The name that keys it across runs (fingerprints): the path as written, relative to the pipeline file's
        /// folder, whatever the current folder.
        public var key: String

        public init(path: String, label: String, key: String? = nil) {
            self.path = path
            self.label = label
            self.key = key ?? label
        }
    }

    /// Whether the path is a glob pattern (several files may match).
    public var isGlob: Bool {
        if case .path(let resolved, _) = location { return resolved != "-" && resolved.contains(where: { "*?[".contains($0) }) }
        return false
    }

    /// A file of a glob that cannot be read at all (its first bytes are not a calendar) is rejected as a file: the
    /// rejection is reported (exit 3) and the source goes on with the other files. Rethrows `error` when the input
    /// is not a glob, under `--strict` (or the source's `strict`), for an interruption, or when events of the file
    /// were handed on already (a failure part way is not a file that "cannot be read at all").
    public func rejectUnreadableFile(_ error: Error, file: Input, eventsHandedOn: Bool, strict: Bool, context: RunContext) throws {
        let problem = CalpipeError(error)
        guard isGlob, !strict, !context.strict, !eventsHandedOn, !problem.isInterruption, context.cancellation.stopReason == nil else { throw error }
        let pattern = written.map(context.environment.displayPath) ?? file.label
        context.report.reject(SourceLocation(file: file.label), "\(problem.message): the file is left out, the other files of \(pattern) are read")
    }

    /// Reads each input with `body`, which hands its batches to the `emit` it is given. A file of a glob that
    /// cannot be read at all is rejected alone and the others are read (`rejectUnreadableFile`).
    public func forEachInput(context: RunContext, strict: Bool = false, emit: (Batch) throws -> Void,
                             _ body: (Input, (Batch) throws -> Void) throws -> Void) throws {
        try withoutActuallyEscaping(emit) { emit in
            for file in try inputs(context: context) {
                var handedOn = false
                do {
                    try body(file) { batch in
                        handedOn = true
                        try emit(batch)
                    }
                } catch {
                    try rejectUnreadableFile(error, file: file, eventsHandedOn: handedOn, strict: strict, context: context)
                }
            }
        }
    }

    /// The path as written in the pipeline file (nil for a URL).
    var written: String? {
        if case .path(_, let written) = location { return written }
        return nil
    }

    /// The concrete inputs, in a stable order: glob matches sorted; a URL fetched through the context's fetcher.
    public func inputs(context: RunContext) throws -> [Input] {
        if let known = context.runState.resolvedInputs(self) { return try known.get() }
        let resolved = Result { try resolveInputs(context: context) }
        context.runState.setResolvedInputs(resolved, for: self)
        return try resolved.get()
    }

    /// A fingerprint of the inputs (`Fingerprint.file` of each, with its label); nil for standard input.
    public func fingerprint(context: RunContext) throws -> String? {
        if let known = context.runState.inputFingerprint(self) { return known }
        let fingerprint = try takeFingerprint(context: context)
        context.runState.setInputFingerprint(fingerprint, for: self)
        return fingerprint
    }

    /// A cheap fingerprint of the inputs for the run's stamp (`RunStamp`): each file's key, size, modification time
    /// and inode, without reading it (a file rewritten keeps none of the three; a touched one is read again). nil for
    /// standard input.
    public func statFingerprint(context: RunContext) throws -> String? {
        var parts: [String] = []
        for input in try inputs(context: context) {
            if input.path == "-" { return nil }
            var info = stat()
            guard stat(input.path, &info) == 0 else { return nil }
            parts.append("\(input.key)=\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec):\(info.st_ino)")
        }
        return parts.joined(separator: "\n")
    }

    private func takeFingerprint(context: RunContext) throws -> String? {
        var parts: [String] = []
        for input in try inputs(context: context) {
            if input.path == "-" { return nil }
            parts.append(input.key + "=" + (try Fingerprint.file(atPath: input.path)))
        }
        return parts.joined(separator: "\n")
    }

    /// The bytes of the inputs already resolved in this run (nil: standard input, or not resolved).
    public func resolvedBytes(context: RunContext) -> Int? {
        guard case .success(let inputs)? = context.runState.resolvedInputs(self) else { return nil }
        var total = 0
        for input in inputs {
            if input.path == "-" { return nil }
            total += ((try? FileManager.default.attributesOfItem(atPath: input.path))?[.size] as? Int) ?? 0
        }
        return total
    }

    private func resolveInputs(context: RunContext) throws -> [Input] {
        switch location {
        case .path(let resolved, let written):
            if resolved == "-" {
                context.runState.sourceLedger.noteOrigin("stdin")
                return [Input(path: "-", label: "-")]
            }
            guard resolved.contains(where: { "*?[".contains($0) }) else {
                Self.expect(resolved, context: context)
                return [Input(path: resolved, label: context.environment.displayPath(written), key: written)]
            }
            let matches = Self.glob(resolved)
            if matches.isEmpty { throw CalpipeError("no file matches this pattern", file: context.environment.displayPath(written)) }
            let base = context.environment.baseDirectory.standardizedFileURL.path + "/"
            for match in matches { Self.expect(match, context: context) }
            return matches.map { match in
                let key = Self.relative(match, to: base)
                return Input(path: match, label: context.environment.displayPath(key), key: key)
            }
        case .url(let url):
            let label = URLRedaction.redact(url)
            guard let fetcher = context.environment.fetcher else {
                throw CalpipeError("fetching URLs is not available in this build", file: label)
            }
            let body = try fetcher.fetch(url: url, access: access, context: context)
            if body.stale {
                context.warn("\(label): \(body.staleReason ?? "server unreachable"); using the cached copy from \(DurationOption.describe(body.age)) ago")
            }
            context.report.count(body.fromCache ? "feeds from cache" : "feeds downloaded")
            let ledgerOrigin = body.stale ? "stale" : body.fromCache ? "cached" : "fetched"
            context.runState.sourceLedger.noteOrigin(ledgerOrigin, ageSeconds: body.fromCache ? Int64(body.age.rounded(.down)) : nil)
            if body.fromCache { context.report.cachedCopy(label, age: body.age, origin: body.origin.rawValue) }
            Self.expect(body.path, context: context)
            return [Input(path: body.path, label: label)]
        }
    }

    /// `path` relative to the folder `base` (which ends in "/"), with ".." where it lies outside it
    /// (`../feeds/a.ics`); absolute when they share only the root.
    static func relative(_ path: String, to base: String) -> String {
        if path.hasPrefix(base) { return String(path.dropFirst(base.count)) }
        let from = base.split(separator: "/"), to = path.split(separator: "/")
        var common = 0
        while common < min(from.count, to.count - 1), from[common] == to[common] { common += 1 }
        guard common > 0 else { return path }
        return (Array(repeating: "..", count: from.count - common) + to[common...].map(String.init)).joined(separator: "/")
    }

    /// Adds a file's size to the bytes the run expects to read (for the progress line).
    static func expect(_ path: String, context: RunContext) {
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { context.report.expectInput(bytes: Int64(info.st_size)) }
    }

    /// Sorted paths matching a glob pattern (directories left out).
    static func glob(_ pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        guard Glibc.glob(pattern, 0, nil, &result) == 0 else { return [] }
        var paths: [String] = []
        for i in 0..<Int(result.gl_pathc) {
            if let p = result.gl_pathv[i], let s = String(validatingCString: p) {
                var isDir: ObjCBool = false
                if FileManager.default.fileExists(atPath: s, isDirectory: &isDir), !isDir.boolValue { paths.append(s) }
            }
        }
        return paths.sorted()
    }
}
