import Exporters
import Importers
import Pipeline

/// An event codes as calpipe's JSON event (docs/json-format.md): encoded by the json sink's writer (the same
/// members and values as `Calpipe.jsonData(_:)`), decoded by the json source's record reader.
extension Event: Codable {
    public func encode(to encoder: any Encoder) throws {
        guard case .array(let records)? = try? JSONParser.parse(bytes: JSONRecords.events([self], pretty: false)), let record = records.first else {
            throw EncodingError.invalidValue(self, EncodingError.Context(codingPath: encoder.codingPath, debugDescription: "the json writer made no record"))
        }
        try record.encode(to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        guard case .object = value else {
            throw DecodingError.typeMismatch(Event.self, DecodingError.Context(codingPath: decoder.codingPath,
                                                                               debugDescription: "expected an event object, got \(value.kindDescription)"))
        }
        do {
            self = try EventMapping().event(lookup: { value.value(atDottedPath: $0) }, zones: Calpipe.zones)
        } catch {
            // The reader throws `CalpipeError` only (typed throws): its message names the field and what was expected.
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath, debugDescription: error.message, underlyingError: error))
        }
    }
}

extension Calpipe {
    /// The IANA zones events are read in (one for the process: a zone is read from the system once).
    static let zones = ZoneDatabase()

    /// `events` as the json sink writes them (`shape: events`): the documented way to serialise events.
    public static func jsonData(_ events: [Event], pretty: Bool = true) -> [UInt8] {
        JSONRecords.events(events, pretty: pretty)
    }
}
