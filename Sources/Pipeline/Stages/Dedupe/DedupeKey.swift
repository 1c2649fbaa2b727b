import CalHash
import Foundation

/// What makes two events the same for the dedupe stage, as 128 bits of a SHA-256 digest: 16 bytes per event
/// remembered, whatever its texts, and no two different keys taken for one in any feed calpipe will meet.
struct DedupeKey: Hashable, Sendable {
    var high: UInt64
    var low: UInt64

    /// How events are compared (`"by"`).
    enum Mode: String, CaseIterable, Sendable {
        /// The UID: an event, or a series with its RECURRENCE-ID overrides, is one thing.
        case uid
        /// Start, end and title, with the title's letter case and spaces normalised.
        case timeAndTitle = "time_and_title"
    }

    init(_ text: String) {
        var hasher = SHA256()
        hasher.update(text.utf8)
        let digest = hasher.finish()
        high = digest[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        low = digest[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// The key of the UID alone.
    init(uid: String) {
        self.init("uid\u{0}" + uid)
    }

    /// The key of the start and end (as instants, dates read in `zone`), the normalised title and, for an override,
    /// the instance it replaces.
    init(timeAndTitleOf event: Event, zone: Zone) {
        let start = event.start.utcSeconds(in: zone)
        let end = event.end.utcSeconds(in: zone)
        let instance = event.recurrenceID.map { String($0.time.utcSeconds(in: zone)) } ?? ""
        self.init("time\u{0}\(event.isAllDay)\u{0}\(start)\u{0}\(end)\u{0}\(instance)\u{0}" + Self.normalizedTitle(event.title ?? ""))
    }

    /// The title in lower case (Unicode's canonical composition first), with runs of white space as one space and
    /// none at either end: "Team  Sync " and "team sync" are one title.
    static func normalizedTitle(_ title: String) -> String {
        title.precomposedStringWithCanonicalMapping.lowercased()
            .split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
