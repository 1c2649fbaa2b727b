/// The input options every file-reading source takes: `path` (a file, a glob such as "data/*.ics", or "-" for
/// standard input) or `url` (`http://`, `https://`, `webcal://` read as https) with its log-in options
/// (`HTTPAuthOptions`), and `allow_empty`. A source includes them with `Include(\.input)` and reads `input.spec`.
public struct InputOptions: OptionConfig {
    public var path: OptionPath?
    public var url: String?
    public var auth = HTTPAuthOptions()
    /// Read by the loader: an empty input may remove its rows from databases.
    public var allowEmpty = false

    public init() {}

    public static let options = OptionSpec<InputOptions> {
        Key("path", \.path, .path, "file, glob pattern (\"data/*.ics\") or \"-\" for standard input; relative to the pipeline file")
        Key("url", \.url, .url(schemes: ["http", "https", "webcal"]),
            "http(s):// or webcal:// address, fetched through the HTTP cache; user:password@ in it logs in with HTTP Basic")
        Include(\.auth, prefix: "url: ")
        Key("allow_empty", \.allowEmpty, .boolean,
            "the feed may truly empty out: an empty input then removes its rows from databases (else they are kept and the run exits 1)")
    }

    public mutating func validate(_ context: OptionContext<InputOptions>) {
        switch (context.isGiven(\.path), context.isGiven(\.url)) {
        case (false, false): context.report(\.path, "missing (give \"path\" or \"url\")")
        case (true, true): context.report(\.url, "give either \"path\" or \"url\", not both")
        case (true, false):
            let urlOnly: [PartialKeyPath<InputOptions>] = [\.auth.headers, \.auth.bearerToken, \.auth.username, \.auth.password, \.auth.netrc, \.auth.maxStale]
            for option in urlOnly where context.isGiven(option) {
                context.report(option, "only read with \"url\" (this source reads \"path\")")
            }
        case (false, true): break
        }
    }

    /// Where to read (after a successful decoding: exactly one of `path` and `url` is given).
    public var spec: InputSpec {
        if let url {
            let https = url.lowercased().hasPrefix("webcal://") ? "https://" + url.dropFirst("webcal://".count) : url
            return InputSpec(location: .url(https), access: auth.access)
        }
        let path = path ?? OptionPath()
        return InputSpec(location: .path(path.resolved, written: path.written))
    }
}
