import Exporters
import Importers
import Pipeline

/// A place codes as an event's `geo` (docs/json-format.md): `{"latitude", "longitude"}`. Decoding also takes
/// `[lat, lon]` and `"lat;lon"`, and rejects a place out of range.
extension Coordinate: Codable {
    public func encode(to encoder: any Encoder) throws {
        try ModelJSON.encode(JSONRecords.coordinate(self), of: self, to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        self = try ModelJSON.reading(decoder) { () throws(CalpipeError) in try EventMapping().coordinate(value, zones: Calpipe.zones) }
    }
}
