import CalSQLite
import Foundation
import Pipeline

/// One cache file opened once for the clients of a pipeline that use it (`HTTPFetcher.sibling` with the same
/// path): one SQLite connection, pruned once, and a damaged file rebuilt (and said) once. Opened on first use;
/// when it cannot be, the clients work without a cache.
final class CacheHandle: Sendable {
    let path: String
    private struct State {
        var cache: HTTPCache?
        var openFailed: String?
        var repairNote: String?
    }

    private let state: Locked<State>

    init(path: String) {
        self.path = path
        state = Locked(State())
    }

    /// Why the cache could not be opened, or that it was damaged and rebuilt, if either happened.
    var problem: String? {
        state.withLock { $0.openFailed ?? $0.repairNote }
    }

    /// Runs `body` with the open cache (the connection is used only while the handle's lock is held); nil when
    /// there is no cache or `body` fails. Opening it (with the opener's `settings`) says what went wrong or was
    /// repaired through `note`, once.
    func with<T>(settings: HTTPSettings, note: (String) -> Void, _ body: (HTTPCache) throws -> T?) -> T? {
        let path = path
        return state.withLock { state in
            if state.cache == nil, state.openFailed == nil {
                do {
                    let opened = try HTTPCache(path: path, busyTimeoutMilliseconds: Int(settings.cacheBusyTimeout * 1000))
                    try opened.prune(now: settings.clock().timeIntervalSince1970, keepSeconds: settings.keepStaleFor)
                    if let repaired = opened.repairNote {
                        state.repairNote = repaired
                        note(repaired)
                    }
                    state.cache = opened
                } catch {
                    let locked = "locked by another run for more than \(DurationText.seconds(settings.cacheBusyTimeout))"
                    let why = (error as? SQLiteError).map { $0.isBusy ? locked : $0.reason } ?? CalpipeError(error).message
                    let message = "cannot use the HTTP cache \(path): \(why); continuing without it"
                    state.openFailed = message
                    note(message)
                }
            }
            guard let cache = state.cache else { return nil }
            return try? body(cache)
        }
    }
}
