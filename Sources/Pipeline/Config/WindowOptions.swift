/// The pipeline file's `window`: `from` (inclusive) and `to` (exclusive), each YYYY-MM-DD, today, today+Nd or
/// today-Nw. Declared once for the loader and `calpipe schema`; the loader reads the dates (they need "today").
struct WindowOptions: OptionConfig {
    var from = ""
    var to = ""

    static let options = OptionSpec<WindowOptions> {
        Key("from", \.from, bound, required: true, "the first day (inclusive)")
        Key("to", \.to, bound, required: true, "the day after the last (exclusive)")
    }

    /// The shape of a bound, for the schema.
    static var bound: OptionType<String> {
        var type = OptionType<String>.string
        type.pattern = "^(today([+-][0-9]+[dw])?|[0-9]{4}-[0-9]{2}-[0-9]{2})$"
        return type
    }

    /// The window, with each bound that is not a date reported.
    func window(today: CivilDate, context: OptionContext<WindowOptions>) -> Window? {
        func day(_ keyPath: KeyPath<WindowOptions, String>) -> CivilDate? {
            let text = self[keyPath: keyPath]
            guard let d = Window.parseBound(text, today: today) else {
                context.report(keyPath, "invalid date \"\(text)\" (expected YYYY-MM-DD, today, today+Nd or today-Nw)")
                return nil
            }
            return d
        }
        let from = context.isGiven(\.from) ? day(\.from) : nil
        let to = context.isGiven(\.to) ? day(\.to) : nil
        guard let from, let to else { return nil }
        guard to > from else {
            context.report(\.to, "the window ends (\(to.iso8601)) before or when it starts (\(from.iso8601)); \"to\" is exclusive")
            return nil
        }
        return Window(from: from, to: to)
    }
}
