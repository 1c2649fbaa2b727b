/// The type of a plugin option's value, as written in the pipeline file. It decides how the loader checks the
/// value before the plugin reads it, how `calpipe plugins` shows it and what `calpipe schema` allows.
///
/// Each `OptionType` has one (`OptionType.path` is `.path`); the pipeline file's own keys write it as a string literal.
public struct OptionKind: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        precondition(Self.all.contains { $0.rawValue == rawValue }, "unknown option kind \"\(rawValue)\"")
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    private init(known: String) {
        rawValue = known
    }

    /// Any text.
    public static let string = OptionKind(known: "string")
    /// A file or folder, relative to the pipeline file.
    public static let path = OptionKind(known: "path")
    /// An `http(s)://` (or `webcal://`) address.
    public static let url = OptionKind(known: "url")
    /// A length of time: "30s", "15m", "6h", "2d" (or ISO 8601 "PT1H").
    public static let duration = OptionKind(known: "duration")
    /// `true` or `false`.
    public static let boolean = OptionKind(known: "boolean")
    /// A whole number.
    public static let integer = OptionKind(known: "integer")
    /// Any number.
    public static let number = OptionKind(known: "number")
    /// A JSON object; its members are read by the plugin.
    public static let object = OptionKind(known: "object")
    /// An array (a single string is taken as an array of one).
    public static let array = OptionKind(known: "array")
    /// A colour: "#RRGGBB", "#RGB" or a CSS colour name (`CSSColor`); checked by the loader, read as "#rrggbb".
    public static let color = OptionKind(known: "color")

    /// A size in bytes: a number, or "512KB", "10MB", "1GB" (1000s), "64KiB", "1MiB" (1024s).
    public static let byteSize = OptionKind(known: "size")
    /// A password, token or key (text, never shown).
    public static let secret = OptionKind(known: "secret")

    public static let all: [OptionKind] = [
        OptionKind(known: "string"), OptionKind(known: "path"), OptionKind(known: "url"), OptionKind(known: "duration"),
        OptionKind(known: "boolean"), OptionKind(known: "integer"), OptionKind(known: "number"),
        OptionKind(known: "object"), OptionKind(known: "array"), OptionKind(known: "color"), OptionKind(known: "size"),
        OptionKind(known: "secret"),
    ]

    public var description: String { rawValue }

    /// How the value is described in messages: "expected a string".
    public var expectation: String {
        switch rawValue {
        case "string": return "a string"
        case "path": return "a path (a string)"
        case "url": return "an address (a string)"
        case "duration": return "a duration such as \"30s\", \"15m\", \"6h\" or \"2d\""
        case "boolean": return "a boolean (true or false)"
        case "integer": return "an integer"
        case "number": return "a number"
        case "object": return "an object"
        case "color": return "a colour (\"#RRGGBB\", \"#RGB\" or a CSS colour name)"
        case "size": return "a size such as \"512KB\", \"10MB\" or \"1GB\""
        case "secret": return "a string"
        default: return "an array"
        }
    }
}
