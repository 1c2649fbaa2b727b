import Foundation

extension OptionType where Value == String {
    /// Any text.
    public static var string: OptionType<String> {
        OptionType(kind: .string, decode: { json, input in
            guard case .string(let s) = json else { input.wrongType(OptionKind.string.expectation, json); return nil }
            return s
        }, encode: { .string($0) })
    }

    /// Text from a fixed list: `unknown value "day" (expected one of: days, events); did you mean "days"?`
    public static func oneOf(_ allowed: [String]) -> OptionType<String> {
        OptionType(kind: .string, values: allowed, decode: { json, input in
            guard let text = OptionType.string.decode(json, input) else { return nil }
            guard allowed.contains(text) else {
                input.report("unknown value \"\(text)\" (expected one of: \(allowed.joined(separator: ", ")))" + Suggestion.hint(for: text, in: allowed))
                return nil
            }
            return text
        }, encode: { .string($0) })
    }

    /// A colour: "#RRGGBB", "#RGB" or a CSS colour name, read as "#rrggbb".
    public static var color: OptionType<String> {
        var type = OptionType(kind: .color, decode: { json, input in
            guard case .string(let s) = json else { input.wrongType(OptionKind.color.expectation, json); return nil }
            guard let hex = CSSColor.hex(s) else { input.report(CSSColor.problem(s)); return nil }
            return hex
        }, encode: { .string($0) })
        // The shape only: the loader checks the name against CSSColor's table.
        type.pattern = "^\\s*(#[0-9A-Fa-f]{3}|#[0-9A-Fa-f]{6}|[A-Za-z]+)\\s*$"
        return type
    }

    /// An `http://` or `https://` address (or another scheme in `schemes`, such as "webcal").
    public static func url(schemes: [String] = ["http", "https"]) -> OptionType<String> {
        let expected = schemes.map { $0 + "://" }
        let list = expected.count <= 1 ? expected.joined() : expected.dropLast().joined(separator: ", ") + " or " + expected.last!
        return OptionType(kind: .url, decode: { json, input in
            guard case .string(let s) = json else { input.wrongType(OptionKind.url.expectation, json); return nil }
            let lower = s.lowercased()
            guard expected.contains(where: { lower.hasPrefix($0) && lower.count > $0.count }) else {
                input.report("expected \(list.hasPrefix("h") ? "an" : "a") \(list) address, got \"\(URLRedaction.redact(s))\"")
                return nil
            }
            return s
        }, encode: { .string(URLRedaction.redact($0)) })
    }

    /// An `http://` or `https://` address.
    public static var url: OptionType<String> { url() }
}

extension OptionType where Value == Int {
    /// A whole number, optionally within bounds: `0 is out of range (expected 1 to 100)`.
    public static func integer(in range: ClosedRange<Int>? = nil) -> OptionType<Int> {
        OptionType(kind: .integer, minimum: range.map { Double($0.lowerBound) }, maximum: range.map { Double($0.upperBound) },
                   decode: { json, input in
            guard case .number(let n) = json, n == n.rounded(), abs(n) < 1e15 else { input.wrongType(OptionKind.integer.expectation, json); return nil }
            let i = Int(n)
            if let range, !range.contains(i) {
                input.report("\(i) is out of range (expected \(range.lowerBound) to \(range.upperBound))")
                return nil
            }
            return i
        }, encode: { .number(Double($0)) })
    }

    public static var integer: OptionType<Int> { integer() }

    /// A size in bytes: a number of bytes, or text such as "512KB", "10MB", "1GB" (1000s) or "64KiB", "1MiB" (1024s).
    public static func byteSize(in range: ClosedRange<Int>? = nil) -> OptionType<Int> {
        OptionType(kind: .byteSize, minimum: range.map { Double($0.lowerBound) }, maximum: range.map { Double($0.upperBound) },
                   decode: { json, input in
            let bytes: Int?
            switch json {
            case .number(let n): bytes = n >= 0 && n == n.rounded() && n < 1e15 ? Int(n) : nil
            case .string(let s): bytes = ByteSizeText.bytes(s)
            default: input.wrongType(OptionKind.byteSize.expectation, json); return nil
            }
            guard let bytes else { input.report("expected \(OptionKind.byteSize.expectation), got \(json.preview)"); return nil }
            if let range, !range.contains(bytes) {
                input.report("\(ByteSizeText.text(bytes)) is out of range (expected \(ByteSizeText.text(range.lowerBound)) to \(ByteSizeText.text(range.upperBound)))")
                return nil
            }
            return bytes
        }, encode: { .string(ByteSizeText.text($0)) })
    }

    public static var byteSize: OptionType<Int> { byteSize() }
}

extension OptionType where Value == Double {
    /// Any number, optionally within bounds.
    public static func number(in range: ClosedRange<Double>? = nil) -> OptionType<Double> {
        OptionType(kind: .number, minimum: range?.lowerBound, maximum: range?.upperBound, decode: { json, input in
            guard case .number(let n) = json else { input.wrongType(OptionKind.number.expectation, json); return nil }
            if let range, !range.contains(n) {
                input.report("\(JSONWriter.numberText(n)) is out of range (expected \(JSONWriter.numberText(range.lowerBound)) to \(JSONWriter.numberText(range.upperBound)))")
                return nil
            }
            return n
        }, encode: { .number($0) })
    }

    public static var number: OptionType<Double> { number() }
}

extension OptionType where Value == Bool {
    /// `true` or `false`.
    public static var boolean: OptionType<Bool> {
        OptionType(kind: .boolean, decode: { json, input in
            guard case .bool(let b) = json else { input.wrongType(OptionKind.boolean.expectation, json); return nil }
            return b
        }, encode: { .bool($0) })
    }
}

extension OptionType where Value: CaseIterable & RawRepresentable, Value.RawValue == String {
    /// One of an enum's raw values; the enum's cases are the allowed values.
    public static var choice: OptionType<Value> {
        let allowed = Value.allCases.map(\.rawValue)
        return OptionType(kind: .string, values: allowed, decode: { json, input in
            guard let text = OptionType<String>.oneOf(allowed).decode(json, input) else { return nil }
            return Value(rawValue: text)
        }, encode: { .string($0.rawValue) })
    }
}

extension OptionType where Value == OptionPath {
    /// A file or folder, resolved against the pipeline file's folder ("-": standard input or output).
    public static var path: OptionType<OptionPath> {
        OptionType(kind: .path, decode: { json, input in
            guard case .string(let s) = json else { input.wrongType(OptionKind.path.expectation, json); return nil }
            if s.isEmpty { input.report("expected a path, got an empty string"); return nil }
            return OptionPath(s, in: input.environment)
        }, encode: { .string($0.written) })
    }
}

extension OptionType where Value == Duration {
    /// A length of time: "30s", "15m", "6h", "2d", "1w" (or a number of seconds).
    public static func duration(in range: ClosedRange<Duration>? = nil) -> OptionType<Duration> {
        OptionType(kind: .duration, minimum: range.map { $0.lowerBound.inSeconds }, maximum: range.map { $0.upperBound.inSeconds },
                   decode: { json, input in
            let seconds: Double?
            switch json {
            case .string(let text): seconds = DurationOption.seconds(text)
            case .number(let n): seconds = n >= 0 && n.isFinite ? n : nil
            default: input.wrongType(OptionKind.duration.expectation, json); return nil
            }
            guard let seconds, seconds < 1e12 else { input.report("expected \(OptionKind.duration.expectation), got \(json.preview)"); return nil }
            let value = Duration.milliseconds(Int64((seconds * 1000).rounded()))
            if let range, !range.contains(value) {
                input.report("\(DurationOption.text(value.inSeconds)) is out of range (expected \(DurationOption.text(range.lowerBound.inSeconds)) to \(DurationOption.text(range.upperBound.inSeconds)))")
                return nil
            }
            return value
        }, encode: { .string(DurationOption.text($0.inSeconds)) })
    }

    public static var duration: OptionType<Duration> { duration() }
}

extension Duration {
    /// The duration in seconds (fractions kept).
    public var inSeconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }
}

extension OptionType where Value == [String] {
    /// An array of strings; a single string is taken as an array of one.
    public static var strings: OptionType<[String]> {
        var type = OptionType(kind: .array, decode: { json, input in
            if case .string(let s) = json { return [s] }
            guard case .array(let items) = json else { input.wrongType(OptionKind.array.expectation, json); return nil }
            var out: [String] = []
            for (i, item) in items.enumerated() {
                guard case .string(let s) = item else { input.appending("[\(i)]").wrongType("a string", item); continue }
                out.append(s)
            }
            return out.count == items.count ? out : nil
        }, encode: { .array($0.map { .string($0) }) })
        type.itemKind = .string
        return type
    }
}

extension OptionType where Value == [(key: String, value: String)] {
    /// An object of string values ({"title": "name"}), in the file's order.
    public static var stringMap: OptionType<[(key: String, value: String)]> {
        var type = OptionType(kind: .object, decode: { json, input in
            guard case .object(let object) = json else { input.wrongType(OptionKind.object.expectation, json); return nil }
            var out: [(key: String, value: String)] = []
            for member in object.members {
                guard case .string(let s) = member.value else { input.appending("." + member.key).wrongType("a string", member.value); continue }
                out.append((member.key, s))
            }
            return out.count == object.members.count ? out : nil
        }, encode: { .object(JSONObject($0.map { (key: $0.key, value: JSONValue.string($0.value)) })) })
        type.itemKind = .string
        return type
    }
}

extension OptionType where Value == Secret {
    /// A password, token or key: read like a string (with `${ENV}`), never shown (`Secret`).
    public static var secret: OptionType<Secret> {
        var type = OptionType(kind: .secret, decode: { json, input in
            guard case .string(let s) = json else { input.report("expected \(OptionKind.secret.expectation), got \(json.kindDescription)"); return nil }
            return Secret(s)
        }, encode: { _ in nil })
        type.isSecret = true
        return type
    }
}

extension OptionType where Value == Zone {
    /// An IANA time zone name ("Europe/Berlin").
    public static var timeZone: OptionType<Zone> {
        OptionType<String>.string.map({ name, input -> Zone? in
            guard let zone = input.environment.zones.zone(named: name) else {
                input.report("unknown time zone \"\(name)\" (expected an IANA name such as \"Europe/Berlin\")" + ZoneDatabase.hint(for: name))
                return nil
            }
            return zone
        }, encode: { $0.identifier })
    }
}
