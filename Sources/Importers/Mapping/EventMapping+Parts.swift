import Pipeline

/// Parts of an event read alone, in the forms the `json` source accepts for them in a record (the `Codable` of
/// `CalpipeKit`'s `Attendee` and `Coordinate`).
extension EventMapping {
    /// An attendee or organizer: `{"name", "email", "role", "status"}` or text ("Name <mail@example.org>").
    package func attendee(_ value: JSONValue, zones: ZoneDatabase) throws(CalpipeError) -> Attendee {
        try reader(field: "attendee", value: value, zones: zones).person(value, field: "attendee")
    }

    /// A place: `{"latitude", "longitude"}`, `[lat, lon]` or `"lat;lon"`, in range.
    package func coordinate(_ value: JSONValue, zones: ZoneDatabase) throws(CalpipeError) -> Coordinate {
        guard let c = try reader(field: "geo", value: value, zones: zones).coordinate() else {
            throw CalpipeError.rejected("expected {\"latitude\": .., \"longitude\": ..}", path: "geo")
        }
        return c
    }

    /// A reader of a record that holds `value` under `field` and nothing else.
    private func reader(field: String, value: JSONValue, zones: ZoneDatabase) -> RecordReader {
        RecordReader(mapping: EventMapping(), lookup: { $0 == field ? value : nil }, zones: zones)
    }
}
