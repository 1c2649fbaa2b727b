import Exporters
import Importers
import Pipeline

/// An attendee codes as an item of an event's `attendees` (docs/json-format.md): `{"name", "email", "role",
/// "status"}`, the members it has. Decoding also takes the text forms the json source reads
/// (`"Name <mail@example.org>"`, `"mailto:..."`). Parameters calpipe has no field for (`otherParameters`) are
/// not part of the JSON.
extension Attendee: Codable {
    public func encode(to encoder: any Encoder) throws {
        try ModelJSON.encode(JSONRecords.attendee(self), of: self, to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        self = try ModelJSON.reading(decoder) { () throws(CalpipeError) in try EventMapping().attendee(value, zones: Calpipe.zones) }
    }
}
