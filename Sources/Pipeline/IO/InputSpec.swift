import Foundation

/// Where a file-reading source reads from: `"path"` (a file, a glob such as "data/*.ics", or "-" for stdin)
/// or `"url"` (`http://`, `https://`, `webcal://` read as https). Every file-reading source uses this,
/// so all of them accept the same two options.
public struct InputSpec: Sendable, Hashable {
    public enum Location: Sendable, Hashable {
        /// A path or glob pattern, already resolved against the pipeline's folder; "-" is stdin.
        case path(String, written: String)
        case url(String)
    }

    public var location: Location

    public init(location: Location) {
        self.location = location
    }

    /// The option docs every file-reading source lists.
    public static let optionDocs: [OptionDoc] = [
        OptionDoc("path", "path", "file, glob pattern (\"data/*.ics\") or \"-\" for standard input; relative to the pipeline file"),
        OptionDoc("url", "url", "http(s):// or webcal:// address, fetched through the HTTP cache"),
        OptionDoc("allow_empty", "boolean", "the feed may truly empty out: an empty input then removes its rows from databases (else they are kept and the run exits 1)", default: "false"),
    ]

    /// Reads `path` or `url` (exactly one) from a plugin's options.
    public static func decode(_ options: PluginOptions) -> InputSpec? {
        let path = options.string("path")
        let url = options.string("url")
        switch (path, url) {
        case (let p?, nil):
            if p.isEmpty { options.report("path", "expected a path, got an empty string"); return nil }
            return InputSpec(location: .path(options.environment.resolve(path: p), written: p))
        case (nil, let u?):
            let lower = u.lowercased()
            if lower.hasPrefix("webcal://") { return InputSpec(location: .url("https://" + u.dropFirst("webcal://".count))) }
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
                options.report("url", "expected an http://, https:// or webcal:// address, got \"\(u)\"")
                return nil
            }
            return InputSpec(location: .url(u))
        case (nil, nil):
            options.report("path", "missing (give \"path\" or \"url\")")
            return nil
        case (_?, _?):
            options.report("url", "give either \"path\" or \"url\", not both")
            return nil
        }
    }

    /// One concrete input to read.
    public struct Input: Sendable, Hashable {
        /// The local file to read ("-" for stdin).
        public var path: String
        /// The name for messages: the path as written (or the URL).
        public var label: String
    }

    /// The concrete inputs, in a stable order: glob matches sorted; a URL fetched through the context's fetcher.
    public func inputs(context: RunContext) throws -> [Input] {
        if let known = context.resolvedInputs[self] { return try known.get() }
        let resolved = Result { try resolveInputs(context: context) }
        context.resolvedInputs[self] = resolved
        return try resolved.get()
    }

    /// A fingerprint of the inputs (`Fingerprint.file` of each, with its label); nil for standard input.
    public func fingerprint(context: RunContext) throws -> String? {
        var parts: [String] = []
        for input in try inputs(context: context) {
            if input.path == "-" { return nil }
            parts.append(input.label + "=" + (try Fingerprint.file(atPath: input.path)))
        }
        return parts.joined(separator: "\n")
    }

    /// The bytes of the inputs already resolved in this run (nil: standard input, or not resolved).
    public func resolvedBytes(context: RunContext) -> Int? {
        guard case .success(let inputs)? = context.resolvedInputs[self] else { return nil }
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
            if resolved == "-" { return [Input(path: "-", label: "-")] }
            guard resolved.contains(where: { "*?[".contains($0) }) else { return [Input(path: resolved, label: written)] }
            let matches = Self.glob(resolved)
            if matches.isEmpty { throw InputError(label: written, message: "no file matches this pattern") }
            let base = context.environment.baseDirectory.standardizedFileURL.path + "/"
            return matches.map { Input(path: $0, label: $0.hasPrefix(base) ? String($0.dropFirst(base.count)) : $0) }
        case .url(let url):
            guard let fetcher = context.environment.fetcher else {
                throw InputError(label: url, message: "fetching URLs is not available in this build")
            }
            let body = try fetcher.fetch(url: url, context: context)
            if body.stale { context.warn("\(url): server unreachable, using the cached copy") }
            context.report.count(body.fromCache ? "feeds from cache" : "feeds downloaded")
            return [Input(path: body.path, label: url)]
        }
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
