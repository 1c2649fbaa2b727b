import Exporters
import Importers
import Pipeline

/// An occurrence codes as a record of the json sink's `shape: occurrences` (docs/json-format.md): its event's
/// descriptive fields and properties, this instance's `start`/`end` (with `timezone`), `recurrence_id`, and
/// `starts_at`/`ends_at` as instants in the zone `CodingUserInfoKey.calpipeTimeZone` names (else the
/// occurrence's own zone).
///
/// The record describes the instance, not its series: decoding gives an occurrence whose event is the
/// instance (its times, no rule), and encoding that again gives the same JSON.
extension Occurrence: Codable {
    public func encode(to encoder: any Encoder) throws {
        let zone = try ModelJSON.zone(of: encoder, for: self) ?? start.zone ?? .utc
        try ModelJSON.encode(JSONRecords.occurrence(self, zone: zone), of: self, to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        let object = try ModelJSON.object("an occurrence object", Occurrence.self, from: decoder)
        self = try ModelJSON.reading(decoder) { () throws(CalpipeError) in
            // The instance's own identity is the occurrence's; its event is the instance as written.
            let event = try EventMapping().event(lookup: { $0 == "recurrence_id" ? nil : object[$0] }, zones: Calpipe.zones)
            let pipelineZone = try ModelJSON.zone(decoder.userInfo[.calpipeTimeZone])
            let zone = event.start.zone ?? pipelineZone
            var instance: EventTime?
            if let value = object["recurrence_id"], !value.isNull { instance = try ModelJSON.instance(value, zone: zone) }
            return Occurrence(event: event, start: event.start, end: event.end, recurrenceID: instance)
        }
    }
}
