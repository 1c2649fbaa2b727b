import Pipeline

/// How a cloud source decides between a whole read and a read of changes, and what it keeps for the next run.
///
/// The plugin's state (`context.state(for:)`, keyed by the source's label) holds the service's cursor (Google's
/// `nextSyncToken`, Graph's `@odata.deltaLink`) and the `scope` it was made for: the calendar's address and the
/// window's instants. A cursor of another scope is not used (the window moved, or the calendar changed): the
/// service's cursor covers only the window of the read that made it, so the source reads everything again. So does
/// a first run, `calpipe run --full`, and a cursor the service no longer knows (410 Gone). A whole read says so to
/// the runner before it sends anything (`RunState.readsWholeFeed`): the sqlite sink then treats it as the whole
/// feed, and removes what is no longer in it.
struct CloudSync {
    /// The source's label: its `name`, else its place in the pipeline ("sources[0]").
    var label: String
    /// The calendar and window the cursor belongs to.
    var scope: String
    var incremental: Bool

    init(context: RunContext, scope: String, incremental: Bool, fallbackLabel: String) {
        label = context.runState.currentSourceLabel ?? fallbackLabel
        self.scope = scope
        self.incremental = incremental
    }

    /// Reads with `read(cursor)`: the stored cursor when it may be used, else nil (a whole read). `read` returns
    /// the cursor for the next run (nil when the service gave none). A cursor refused with 410 Gone starts a
    /// whole read.
    func run(context: RunContext, service: String, read: (_ cursor: String?) throws -> String?) throws {
        var cursor: String?
        if incremental, let stored = context.state(for: label) {
            if stored["scope"]?.stringValue == scope {
                cursor = stored["cursor"]?.stringValue
            } else {
                context.info("\(label): the window or calendar changed since the last run; reading the whole window from \(service)")
            }
        }
        var next: String?
        if let cursor {
            do {
                next = try read(cursor)
            } catch let gone as CloudAPI.Gone {
                context.info("\(label): \(service) no longer knows the last run's sync state (410 Gone: \(gone.message)); reading the whole window")
                context.runState.readsWholeFeed(label)
                next = try read(nil)
            }
        } else {
            context.runState.readsWholeFeed(label)
            next = try read(nil)
        }
        guard incremental else { return }
        guard let next else {
            context.warn("\(label): \(service) sent no sync token; the next run reads the whole window again")
            return
        }
        var state = PluginState()
        state["scope"] = .string(scope)
        state["cursor"] = .string(next)
        context.setState(state, for: label)
    }

    /// The window as RFC 3339 UTC instants: the pipeline's window in its zone, else today to today + 365 days (the
    /// expand stage's horizon without a window).
    static func range(context: RunContext) -> (from: String, to: String) {
        let (start, end): (Int64, Int64)
        if let window = context.window {
            (start, end) = window.utcRange(in: context.zone)
        } else {
            let today = context.environment.today
            start = context.zone.utc(fromLocal: CivilDateTime(date: today))
            end = context.zone.utc(fromLocal: CivilDateTime(date: today.adding(days: 365)))
        }
        return (CivilDateTime(secondsSinceEpoch: start).iso8601 + "Z", CivilDateTime(secondsSinceEpoch: end).iso8601 + "Z")
    }

    /// `base` with a query of `items`, each value percent-encoded (RFC 3986 unreserved characters kept).
    static func url(_ base: String, _ items: [(String, String)]) -> String {
        guard !items.isEmpty else { return base }
        return base + "?" + items.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters (so "+", "/" and "=" in tokens survive a
    /// query) and the characters of `keeping`.
    static func encode(_ text: String, keeping: String = "") -> String {
        let kept = Set(keeping.utf8)
        let hex = Array("0123456789ABCDEF".unicodeScalars)
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case _ where kept.contains(byte):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 15)])
            }
        }
        return out
    }

    /// One path segment of an id (a Graph calendar id ends in "=", a Google one holds "@"): RFC 3986's `pchar`s
    /// are kept, "/" and the rest are encoded.
    static func pathSegment(_ id: String) -> String { encode(id, keeping: "!$&'()*+,;=:@") }
}
