import Foundation

/// What each source of a run did, for the `sources` list of exported documents: its name and plugin type,
/// where its data came from (a local file, stdin, a download, the HTTP cache, a stale cached copy), how old
/// a cached copy was, and how many events it read. Filled by the runner and `InputSpec`; read by sinks at
/// commit. Locked: the runner's thread writes while the sinks' thread may read.
package final class SourceLedger: @unchecked Sendable {
    package struct Entry: Sendable, Hashable {
        package var name: String
        package var type: String
        /// "file", "stdin", "fetched", "cached" or "stale".
        package var origin: String
        /// Seconds since a cached copy was downloaded (nil when not from the cache or unknown).
        package var ageSeconds: Int64?
        package var events: Int
    }

    private let lock = NSLock()
    private var items: [Entry] = []

    package init() {}

    /// The sources in pipeline order.
    package var entries: [Entry] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }

    func begin(name: String, type: String) {
        lock.lock()
        items.append(Entry(name: name, type: type, origin: "file", ageSeconds: nil, events: 0))
        lock.unlock()
    }

    func addEvents(_ n: Int) {
        lock.lock()
        if !items.isEmpty { items[items.count - 1].events += n }
        lock.unlock()
    }

    /// Notes where the running source's input came from ("stdin", "fetched", "cached", "stale"). With several
    /// inputs (a glob), a download or a cached copy is what a reader wants to know about, so it wins over "file".
    package func noteOrigin(_ origin: String, ageSeconds: Int64? = nil) {
        lock.lock()
        if !items.isEmpty {
            items[items.count - 1].origin = origin
            items[items.count - 1].ageSeconds = ageSeconds
        }
        lock.unlock()
    }
}
