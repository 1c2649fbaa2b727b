/// What a transform rule does to an event it matches. `remove` stands alone; the others apply in this order:
/// the privacy preset, the text edits (title, location, description), then colour, categories, calendar name and
/// transparency. `stop`: no later rule applies to the event.
struct RuleActions: Sendable {
    var remove = false
    var privacyBusy = false
    var title: TextEdit?
    var location: TextEdit?
    var description: TextEdit?
    /// "#rrggbb".
    var color: String?
    var categories: [String]?
    var calendar: String?
    /// "OPAQUE" or "TRANSPARENT".
    var transparency: String?
    var stop = false

    /// Applies the changes to `event` (not `remove` or `stop`). Returns whether the event changed.
    func apply(to event: inout Event) -> Bool {
        let before = event
        if privacyBusy { event.makeBusy() }
        if let title { event.title = title.apply(event.title) }
        if let location { event.location = location.apply(event.location) }
        if let description { event.description = description.apply(event.description) }
        if let color { event.color = color }
        if let categories { event.categories = categories }
        if let calendar { event.metadata["calendar"] = calendar.isEmpty ? nil : calendar }
        if let transparency { event.transparency = transparency }
        guard event != before else { return false }
        // The original text no longer says what the event is (a sink that keeps it would write the old title).
        event.sourceText = nil
        return true
    }
}
