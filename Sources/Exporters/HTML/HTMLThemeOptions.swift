import Pipeline

/// The `html` sink's `theme` option: `{"light": {"accent": "#..."}, "dark": {...}}`, any colour of a palette as
/// "#rrggbb" (or "#rgb"); what is not given keeps the standard theme's colour.
package struct HTMLThemeOptions: OptionConfig {
    var light = PaletteOptions()
    var dark = PaletteOptions()

    package init() {}

    package static let options = OptionSpec<HTMLThemeOptions> {
        Group("light", \.light, "the light page's colours")
        Group("dark", \.dark, "the dark page's colours (prefers-color-scheme: dark)")
    }

    /// The standard theme with these colours.
    var theme: HTMLTheme {
        var theme = HTMLTheme.standard
        light.apply(to: &theme.light)
        dark.apply(to: &theme.dark)
        return theme
    }

    /// One palette's colours, each nil when not given.
    struct PaletteOptions: OptionConfig {
        var background: String?
        var surface: String?
        var shade: String?
        var text: String?
        var muted: String?
        var accent: String?
        var onAccent: String?

        init() {}

        static let options = OptionSpec<PaletteOptions> {
            Key("background", \.background, hex, "the page behind everything", default: "the standard theme's")
            Key("surface", \.surface, hex, "day cards and the strip", default: "the standard theme's")
            Key("shade", \.shade, hex, "every other month in the strip, attendee initials", default: "the standard theme's")
            Key("text", \.text, hex, "text", default: "the standard theme's")
            Key("muted", \.muted, hex, "secondary text: durations, locations, the footer", default: "the standard theme's")
            Key("accent", \.accent, hex, "links, today's ring, the \"today\" badge", default: "the standard theme's")
            Key("on_accent", \.onAccent, hex, "text on the accent colour", default: "the standard theme's")
        }

        /// "#rrggbb" or "#rgb", read in lower case.
        static let hex = OptionType<String>.string.map { value, input -> String? in
            guard HTMLTheme.rgb(value) != nil else {
                input.report("expected a colour as \"#rrggbb\", got \"\(value)\"")
                return nil
            }
            return value.lowercased()
        }

        func apply(to palette: inout HTMLTheme.Palette) {
            let members: [(String?, WritableKeyPath<HTMLTheme.Palette, String>)] = [
                (background, \.background), (surface, \.surface), (shade, \.shade), (text, \.text), (muted, \.muted),
                (accent, \.accent), (onAccent, \.onAccent),
            ]
            for (value, keyPath) in members { if let value { palette[keyPath: keyPath] = value } }
        }
    }
}
