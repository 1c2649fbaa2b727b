/// The options every source takes besides its own, declared once; the loader reads them (labels, row keys, colours).
public struct SourceCommonOptions: OptionConfig {
    public var name: String?
    /// "#rrggbb".
    public var color: String?

    public init() {}

    public static let options = OptionSpec<SourceCommonOptions> {
        Key("name", \.name, .string, "names the source: labels its events and keys its rows in databases, so its address may change",
            default: "the path or URL as written")
        Key("color", \.color, .color, "the colour of the source's events on an agenda page (\"#RRGGBB\", \"#RGB\" or a CSS colour name): "
            + "wins over the feed's calendar colour; an event's own COLOR wins over it",
            default: "the feed's calendar colour (COLOR, X-APPLE-CALENDAR-COLOR, X-WR-CALCOLOR), else the page's accent")
    }
}
