/// What each source of a run did, for the `sources` list of exported documents: its name and plugin type,
/// where its data came from (a local file, stdin, a download, the HTTP cache, a stale cached copy), how old
/// a cached copy was, and how many events it read. Filled by the runner and `InputSpec`; read by sinks at
/// commit. Locked: the runner's thread writes while the sinks' thread may read.
package final class SourceLedger: Sendable {
    package struct Entry: Sendable, Hashable {
        package var name: String
        package var type: String
        /// "file", "stdin", "fetched", "cached", "stale" or "program" (an `exec` source).
        package var origin: String
        /// Seconds since a cached copy was downloaded (nil when not from the cache or unknown).
        package var ageSeconds: Int64?
        package var events: Int
    }

    private let items = Locked<[Entry]>([])

    package init() {}

    /// The sources in pipeline order.
    package var entries: [Entry] { items.withLock { $0 } }

    func begin(name: String, type: String) {
        items.withLock { $0.append(Entry(name: name, type: type, origin: "file", ageSeconds: nil, events: 0)) }
    }

    func addEvents(_ n: Int) {
        items.withLock { if !$0.isEmpty { $0[$0.count - 1].events += n } }
    }

    /// Notes where the running source's input came from ("stdin", "fetched", "cached", "stale"). With several
    /// inputs (a glob), a download or a cached copy is what a reader wants to know about, so it wins over "file".
    package func noteOrigin(_ origin: String, ageSeconds: Int64? = nil) {
        items.withLock {
            guard !$0.isEmpty else { return }
            $0[$0.count - 1].origin = origin
            $0[$0.count - 1].ageSeconds = ageSeconds
        }
    }
}
