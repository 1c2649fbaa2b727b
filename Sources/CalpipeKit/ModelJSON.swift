import Exporters
import Pipeline

extension CodingUserInfoKey {
    /// The pipeline's time zone, an IANA name (`"Europe/Berlin"`), for the `Codable` of `Occurrence` and
    /// `DayEntry`: the zone of their `starts_at`/`ends_at` offsets and of a local `recurrence_id`, as the json
    /// sink writes them for a pipeline in that zone. Without it an occurrence's instants are written in its own
    /// zone (UTC for UTC, all-day and floating times) and a day entry's offsets are its own (its local times less
    /// its UTC instants).
    public static let calpipeTimeZone = CodingUserInfoKey(rawValue: "calpipe.timeZone")!
}

/// The model's `Codable`: the json sink's writer makes the bytes, which are handed to the encoder as a JSON
/// tree; decoding reads the tree back with the json source's readers. One encoder, so `JSONEncoder` writes the
/// documented JSON (docs/json-format.md) with the sink's members and values.
enum ModelJSON {
    /// Encodes the writer's `bytes` for `value`.
    static func encode(_ bytes: [UInt8], of value: Any, to encoder: any Encoder) throws {
        guard let json = try? JSONParser.parse(bytes: bytes) else {
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: encoder.codingPath, debugDescription: "the json writer made no JSON"))
        }
        try json.encode(to: encoder)
    }

    /// The JSON object being decoded as `type` ("an event object").
    static func object(_ what: String, _ type: Any.Type, from decoder: any Decoder) throws -> JSONObject {
        let value = try JSONValue(from: decoder)
        guard case .object(let object) = value else {
            throw DecodingError.typeMismatch(type, DecodingError.Context(codingPath: decoder.codingPath,
                                                                        debugDescription: "expected \(what), got \(value.kindDescription)"))
        }
        return object
    }

    /// Runs a reader; its `CalpipeError` (which names the field and what was expected) becomes the decoder's error.
    static func reading<T>(_ decoder: any Decoder, _ body: () throws(CalpipeError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath, debugDescription: error.message, underlyingError: error))
        }
    }

    /// The zone `calpipeTimeZone` names in the encoder's or decoder's `userInfo`, or nil; an unknown name is an
    /// error, not a silent UTC.
    static func zone(_ setting: Any?) throws(CalpipeError) -> Zone? {
        guard let name = setting as? String else { return nil }
        guard let zone = Calpipe.zones.zone(named: name) else {
            throw CalpipeError.rejected("unknown time zone \"\(name)\" (expected an IANA name such as \"Europe/Berlin\")", path: "userInfo[.calpipeTimeZone]")
        }
        return zone
    }

    static func zone(of encoder: any Encoder, for value: Any) throws -> Zone? {
        do {
            return try zone(encoder.userInfo[.calpipeTimeZone])
        } catch {
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: encoder.codingPath, debugDescription: error.message))
        }
    }

    /// A `recurrence_id` as written (`EventTime`'s text): a date, a UTC time, a time with its offset, or a local
    /// time, which is read in `zone` (the series' zone is not in the JSON) or floating without one.
    static func instance(_ value: JSONValue, zone: Zone?) throws(CalpipeError) -> EventTime {
        guard case .string(let text) = value, let time = StableHash.instance(fromISO: text) else {
            throw CalpipeError.rejected("invalid time \(value.preview) (expected ISO-8601 such as 2026-11-23T09:00:00)", path: "recurrence_id")
        }
        if case .floating(let local) = time, let zone { return .zoned(local, zone) }
        return time
    }
}
