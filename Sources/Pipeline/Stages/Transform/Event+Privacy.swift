extension Event {
    /// The properties an event keeps under `"privacy": "busy"`, of those calpipe has no field for: when and how it
    /// blocks time, never what it is about.
    static let busyKeptProperties: Set<String> = ["DTSTAMP", "CREATED", "LAST-MODIFIED", "SEQUENCE", "TRANSP", "CLASS",
                                                  "X-MICROSOFT-CDO-BUSYSTATUS"]

    /// The event as free/busy time: titled "Busy", with its times, recurrence, status, colour and source, and
    /// nothing about what it is: no description, location, place, attendees, organizer, URL, categories or
    /// alarms, none of the other properties (X-ALT-DESC, ATTACH, CONTACT, COMMENT, RESOURCES, ...) but those in
    /// `busyKeptProperties`, and no original text.
    mutating func makeBusy() {
        title = "Busy"
        description = nil
        location = nil
        coordinate = nil
        attendees = []
        organizer = nil
        url = nil
        categories = []
        components = []
        fieldParameters = [:]
        otherProperties.removeAll { !Self.busyKeptProperties.contains($0.name.uppercased()) }
        sourceText = nil
    }
}
