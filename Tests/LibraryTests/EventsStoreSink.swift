import CalpipeKit
import Foundation

// docs/architecture.md, "A sink that writes to a server", shows this file from here on; ArchitectureDocsCodeTests
// checks that the page's code block is this text.
// docs:begin events-store
/// Writes events to a store on a server, one resource per UID (`URL/UID`, a JSON body), as a CalDAV collection
/// takes calendar objects: PUT with `If-None-Match: *` for a UID it never wrote, PUT with `If-Match: ETAG` for one
/// it wrote before, DELETE with `If-Match: ETAG` for a deletion. The ETags the store answered, and a digest of what
/// was sent, are its state: an event sent unchanged is not sent again, and a resource someone else changed since
/// is not overwritten (412: a conflict). `@unchecked Sendable`: `stored` is used only in the order the runner
/// calls a sink (`open`, then every `write` on the sinks' thread, then `commit` once the last `write` returned).
final class EventsStoreSink: Sink, @unchecked Sendable {
    static let descriptor = SinkDescriptor(
        type: "events-store", kind: .sink, summary: "puts events to a store on a server, one resource per UID", options: Options.self,
        make: { options, context in
            let settings = HTTPSettings(options.client, base: HTTPSettings(userAgent: "events-store-example/1.0"))
            return EventsStoreSink(url: options.url, credentials: options.auth.access.credentials,
                                   client: context.environment.httpClient(settings: settings))
        })

    struct Options: OptionConfig {
        var url = ""
        var auth = HTTPAuthOptions()
        var client = HTTPClientOptions()

        static let options = OptionSpec<Options> {
            Key("url", \.url, .url, required: true, "the store's address; an event goes to URL/UID")
            Include(\.auth)
            Include(\.client)
        }
    }

    let url: String
    let credentials: RemoteCredentials
    let client: HTTPFetcher
    /// What the store holds of each UID this sink wrote: the ETag it answered and the digest of the body sent.
    private var stored: [String: (etag: String, digest: String)]?

    init(url: String, credentials: RemoteCredentials, client: HTTPFetcher) {
        (self.url, self.credentials, self.client) = (url, credentials, client)
    }

    var needs: BatchContent { .events }
    var label: String { "events-store \(url)" }
    /// Each request changes the server at once and cannot be taken back: the runner commits this sink last.
    var commitKind: SinkCommit { .remote }
    /// Deletions from a `.delta` source come here (and such a source may feed this sink).
    var appliesDeletions: Bool { true }

    /// Nothing to prepare: the state is read at the first `write` (in `open` the states are not read yet).
    func open(context: RunContext) throws { stored = nil }

    func write(_ batch: Batch, context: RunContext) throws {
        if stored == nil { stored = Self.resources(context.state(for: label)) }
        for deletion in batch.deletions where deletion.recurrenceID == nil {
            guard let known = stored?[deletion.uid] else { continue }
            let request = HTTPRequest(method: "DELETE", url: resource(deletion.uid), headers: ["If-Match": known.etag], credentials: credentials)
            guard let answer = try send(request, uid: deletion.uid, context: context) else { continue }
            if answer.isSuccess || answer.status == 404 {  // 404: gone already
                stored?[deletion.uid] = nil
                context.report.record(answer.status == 404 ? .unchanged : .deleted, sink: label)
            } else {
                try fail(deletion.uid, answer, context: context)
            }
        }
        // One resource per UID: this example sends events and skips the overrides of single instances.
        for event in batch.events where event.recurrenceID == nil {
            let body = Self.body(event)
            let digest = Self.digest(body)
            let known = stored?[event.uid]
            if known?.digest == digest { context.report.record(.unchanged, sink: label); continue }
            var headers = ["Content-Type": "application/json"]
            if let known { headers["If-Match"] = known.etag } else { headers["If-None-Match"] = "*" }
            let request = HTTPRequest(method: "PUT", url: resource(event.uid), headers: headers, body: body, credentials: credentials)
            guard let answer = try send(request, uid: event.uid, context: context) else { continue }
            if answer.isSuccess, let etag = answer.header("etag") {
                stored?[event.uid] = (etag, digest)
                context.report.record(known == nil ? .created : .updated, sink: label)
            } else {
                try fail(event.uid, answer, context: context)
            }
        }
    }

    /// Nothing to make visible: every request took effect as it was answered. Proposes the state: the new ETags of
    /// what was written, the old ones of what could not be (stored only once every sink committed).
    func commit(context: RunContext) throws -> Int {
        guard let stored else { return 0 }
        let members = stored.keys.sorted().map { uid in
            (key: uid, value: JSONValue.object(JSONObject([("etag", .string(stored[uid]!.etag)), ("digest", .string(stored[uid]!.digest))])))
        }
        context.setState(PluginState(JSONObject(members)), for: label)
        return stored.count
    }

    /// What was sent stays sent: a failed run reports it, and the next run starts from the state stored before.
    func abort(context: RunContext) {}

    /// Sends one request; nil, with the record reported failed, when no answer could be had (after the client's
    /// retries: 5xx, timeouts).
    private func send(_ request: HTTPRequest, uid: String, context: RunContext) throws -> HTTPResponse? {
        do {
            return try client.send(request).response
        } catch {
            context.report.recordFailure(sink: label, record: "UID \"\(uid)\"", reason: CalpipeError(error).message)
            return nil
        }
    }

    /// An answer that is not a success: 412 is a conflict (the resource changed since this sink wrote it, or
    /// exists when it never did), 401 and 403 stop the run (nothing can be written), anything else fails the record.
    private func fail(_ uid: String, _ answer: HTTPResponse, context: RunContext) throws {
        switch answer.status {
        case 412:
            context.report.recordFailure(sink: label, record: "UID \"\(uid)\"",
                                         reason: "the store's copy changed since it was written (412 Precondition Failed); it was left as it is",
                                         outcome: .conflict)
        case 401, 403:
            throw CalpipeError("\(label): the store refused the log-in (\(answer.status))")
        default:
            context.report.recordFailure(sink: label, record: "UID \"\(uid)\"", reason: "the store answered \(answer.status): \(answer.bodyPreview)")
        }
    }

    private func resource(_ uid: String) -> String {
        url + "/" + (uid.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? uid)
    }

    /// The resource's body: the event's UID, title, start and end, as JSON with sorted keys (the same event
    /// gives the same bytes, so the same digest).
    static func body(_ event: Event) -> [UInt8] {
        var object: [String: String] = ["uid": event.uid, "start": event.start.iso8601, "end": event.end.iso8601]
        object["title"] = event.title
        return Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }

    /// FNV-1a, 64 bits, in hex: enough to tell whether a body changed since it was sent.
    static func digest(_ bytes: [UInt8]) -> String {
        let hash = bytes.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }

    /// The state as the sink keeps it: `{UID: {"etag": ..., "digest": ...}}`.
    static func resources(_ state: PluginState?) -> [String: (etag: String, digest: String)] {
        var out: [String: (etag: String, digest: String)] = [:]
        for (uid, value) in state?.object.members ?? [] {
            if let etag = value.objectValue?["etag"]?.stringValue, let digest = value.objectValue?["digest"]?.stringValue { out[uid] = (etag, digest) }
        }
        return out
    }
}
// docs:end events-store
