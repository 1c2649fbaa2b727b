import Pipeline

/// The iCalendar rendering of typed values: TEXT escaped, times in the basic forms with VALUE=DATE or
/// VALUE=PERIOD where the type is not the property's default, everything else as its iCalendar text.
extension ICSLineWriter: ICalContentWriter {
    mutating func property(_ name: String, _ parameters: [Parameter], _ value: ICalValue) {
        switch value {
        case .text(let s): property(name, parameters, ICSTextEscaping.escape(s))
        case .texts(let items): property(name, parameters, items.map(ICSTextEscaping.escape).joined(separator: ","))
        case .verbatim(_, let s), .raw(let s): property(name, parameters, s)
        case .time(let t):
            property(name, t.isDate ? parameters + [Parameter("VALUE", "DATE")] : parameters, BasicDateText.format(t))
        case .period(let s, let e):
            property(name, parameters + [Parameter("VALUE", "PERIOD")], BasicDateText.format(s) + "/" + BasicDateText.format(e))
        case .periodWithDuration(let s, let d):
            property(name, parameters + [Parameter("VALUE", "PERIOD")], BasicDateText.format(s) + "/" + d.iCalendarText)
        case .duration(let d): property(name, parameters, d.iCalendarText)
        case .recur(let rule): property(name, parameters, rule.text)
        case .geo(let lat, let lon):
            property(name, parameters, ICalEventWriter<ICSLineWriter>.number(lat) + ";" + ICalEventWriter<ICSLineWriter>.number(lon))
        case .utcOffset(let seconds): property(name, parameters, Zone.offsetText(seconds, separator: false))
        }
    }
}
