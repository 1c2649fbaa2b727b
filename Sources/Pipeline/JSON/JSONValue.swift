/// A parsed JSON value. Objects keep their keys in document order, so messages and round trips are stable.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The JSON type name used in messages ("a string", "an object", ...).
    public var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Short text of the value for messages: strings quoted, containers abbreviated.
    public var preview: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return JSONWriter.numberText(n)
        case .string(let s): return "\"" + (s.count > 40 ? String(s.prefix(40)) + "..." : s) + "\""
        case .array: return "[...]"
        case .object: return "{...}"
        }
    }

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o }; return nil }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    public var numberValue: Double? { if case .number(let n) = self { return n }; return nil }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var isNull: Bool { if case .null = self { return true }; return false }

    /// Follows a dotted path ("when.begin", "items.0.name"): object keys, or array indexes as numbers.
    public func value(atDottedPath path: String) -> JSONValue? {
        var current = self
        for component in path.split(separator: ".", omittingEmptySubsequences: false) {
            switch current {
            case .object(let o):
                guard let next = o[String(component)] else { return nil }
                current = next
            case .array(let a):
                guard let i = Int(component), a.indices.contains(i) else { return nil }
                current = a[i]
            default:
                return nil
            }
        }
        return current
    }
}

/// A JSON object with its members in document order.
public struct JSONObject: Hashable, Sendable {
    public var members: [(key: String, value: JSONValue)]

    public init(_ members: [(key: String, value: JSONValue)] = []) {
        self.members = members
    }

    public subscript(key: String) -> JSONValue? {
        get {
            for member in members where member.key == key { return member.value }
            return nil
        }
        set {
            if let i = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }

    public var keys: [String] { members.map(\.key) }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for m in members { hasher.combine(m.key); hasher.combine(m.value) }
    }
}
