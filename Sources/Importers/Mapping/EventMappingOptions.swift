import Pipeline

/// The mapping options of the `json` and `xml` sources: `fields`, `date_format`, `timezone` (`EventMapping`).
package struct EventMappingOptions: OptionConfig {
    var fields: [(key: String, value: String)] = []
    var dateFormat = EventMapping.DateFormat.auto
    var timezone: Zone?

    package init() {}

    package static let options = OptionSpec<EventMappingOptions> {
        Key("fields", \.fields, .stringMap, "map calpipe field names to paths in each record, e.g. {\"title\": \"name\", \"start\": \"when.begin\"}")
        Key("date_format", \.dateFormat, .choice, "how dates are written")
        Key("timezone", \.timezone, .timeZone, "IANA zone for local times without an offset (default: floating)")
    }

    package mutating func validate(_ context: OptionContext<EventMappingOptions>) {
        for (name, _) in fields where !EventMapping.fieldNames.contains(name) {
            context.report(\.fields, member: name,
                           "unknown field (expected one of: \(EventMapping.fieldNames.joined(separator: ", ")))" + Suggestion.hint(for: name, in: EventMapping.fieldNames))
        }
    }

    /// The mapping the options ask for.
    package var mapping: EventMapping {
        EventMapping(paths: Dictionary(fields.filter { EventMapping.fieldNames.contains($0.key) }, uniquingKeysWith: { $1 }),
                     dateFormat: dateFormat, zone: timezone)
    }
}
