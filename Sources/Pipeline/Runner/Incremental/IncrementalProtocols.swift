/// A source that can say whether its input changed since the last run: a fingerprint of what it would read
/// (file sizes, modification times and SHA-256 of the bytes; for URLs the cached body after revalidation).
/// nil: it cannot tell (standard input), so it is always read.
public protocol FingerprintableSource: EventSource {
    func inputFingerprint(context: RunContext) throws -> String?
    /// The size of what it read in this run (nil: unknown, such as standard input).
    func inputBytes(context: RunContext) -> Int?
}

/// A stage whose output depends only on its input events, the pipeline's zone and window and its options:
/// rerunning it on an unchanged event gives the same rows, so incremental runs may skip such events. A
/// stage that brings in outside data (the forecast) is not one, and turns incremental runs off. A stage of your
/// own declares it with the conformance alone (`extension MyStage: DeterministicStage {}`): its options are part of
/// the sources' config fingerprint already, so changing them reads every source again (docs/incremental.md).
public protocol DeterministicStage: Stage {}

/// A source that reads one `InputSpec` (a path, glob, URL or standard input): it is fingerprinted by its inputs
/// (`InputSpec.fingerprint`), so it only declares the conformance.
package protocol InputSpecSource: FingerprintableSource {
    var input: InputSpec { get }
}

extension InputSpecSource {
    package func inputFingerprint(context: RunContext) throws -> String? { try input.fingerprint(context: context) }
    package func inputBytes(context: RunContext) -> Int? { input.resolvedBytes(context: context) }
}

/// What a source's last run left in a sink, as the runner compares it with this run.
public struct SourceFingerprint: Sendable, Hashable {
    /// The input's fingerprint (`FingerprintableSource`); nil: unknown, never equal.
    public var input: String?
    /// SHA-256 of everything but the input and the window that shapes the rows: calpipe's format version,
    /// the zone, the source's and the stages' options.
    public var config: String
    /// The window as "FROM/TO" ("" without one).
    public var window: String

    public init(input: String?, config: String, window: String) {
        self.input = input
        self.config = config
        self.window = window
    }
}

/// An event as a sink stored it in an earlier run.
public struct StoredEvent: Sendable, Hashable {
    /// The sink's row id.
    public var id: Int64
    /// `EventHasher.hash` of the event as written.
    public var contentHash: Int64
    /// `Fingerprint.rawText` of its raw text (`Event.sourceText`), when it had one.
    public var textHash: Int64?

    public init(id: Int64, contentHash: Int64, textHash: Int64? = nil) {
        self.id = id
        self.contentHash = contentHash
        self.textHash = textHash
    }
}

/// A stored event found by the hash of its raw text (`Fingerprint.rawText`).
public struct StoredText: Sendable, Hashable {
    /// The sink's row id.
    public var id: Int64
    /// The UTC span the event (or series) can touch as stored: from its start to `spanEndUTC` (nil: a series with
    /// no known end), to tell whether it touches a range the window gained.
    public var startUTC: Int64
    public var spanEndUTC: Int64?
    /// For a part of a series (a master with RRULE/RDATE or an override), the key of its UID
    /// (`SourceMemory.seriesKey`); nil for a single event.
    public var series: UInt64?

    public init(id: Int64, startUTC: Int64, spanEndUTC: Int64?, series: UInt64?) {
        self.id = id
        self.startUTC = startUTC
        self.spanEndUTC = spanEndUTC
        self.series = series
    }

    /// Whether the span touches one of `ranges` (a zero-length span: when it starts inside one).
    func touches(_ ranges: [Range<Int64>]) -> Bool {
        let (s, e) = (startUTC, spanEndUTC ?? Int64.max)
        return ranges.contains { r in s < r.upperBound && (e > r.lowerBound || (e <= s && s >= r.lowerBound)) }
    }
}

/// What a sink remembers of one source from its last run: its fingerprint and its events' content hashes.
/// Read-only once made; used from several threads.
public protocol SourceMemory: AnyObject, Sendable {
    var fingerprint: SourceFingerprint { get }
    /// The source's context hash stored by the last run (`IncrementalRun.setContext`), nil when none.
    var contextHash: String? { get }
    /// The stored event whose raw text has this hash (`Fingerprint.rawText(bytes:)`), if exactly one.
    func stored(textHash: Int64) -> StoredText?
    /// Per series (key of its UID): the raw-text hashes of its stored parts (nil for a part without one) with
    /// their spans. Filled only when the memory has a context hash.
    var seriesParts: [UInt64: [(textHash: Int64?, part: StoredText)]] { get }
    /// The key of a UID in `seriesParts`.
    func seriesKey(uid: String) -> UInt64
    /// The stored event with this key (in this source): uid and RECURRENCE-ID (nil for none).
    func stored(uid: String, recurrenceID: EventTime?) -> StoredEvent?
    /// How many events (a series and its overrides) are stored under this uid.
    func componentCount(uid: String) -> Int
    /// The ids of every stored event of the source.
    var allIDs: [Int64] { get }
}

/// A sink that can keep the rows of unchanged sources and events (docs/incremental.md). The runner asks it,
/// after `open`, what it remembers of each source, and lets it know through `RunContext.incremental` which
/// sources and events it left out.
public protocol IncrementalSink: Sink {
    /// What the sink remembers of `source` (its label), nil when nothing (or nothing it can vouch for).
    /// `current` is this run's fingerprint: a sink loads its events' hashes only when they can be used (same
    /// config). Called after `open`, on the runner's thread, before any `write`.
    func memory(ofSource source: String, current: SourceFingerprint) throws -> (any SourceMemory)?
    /// Whether the sink holds events of `source` from earlier runs (then an empty input keeps them, issue 16).
    /// Called like `memory(ofSource:current:)`.
    func remembersEvents(ofSource source: String) throws -> Bool
}
