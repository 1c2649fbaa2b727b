/// A property parameter with its values, in the order they were written (`ROLE=REQ-PARTICIPANT`).
public struct Parameter: Hashable, Sendable {
    public var name: String
    public var values: [String]

    public init(name: String, values: [String]) {
        self.name = name
        self.values = values
    }

    public init(_ name: String, _ value: String) {
        self.init(name: name, values: [value])
    }
}

/// A property calpipe has no field for, kept as written so a round trip does not lose it.
/// The value is the unescaped text form as it appeared in the source (iCalendar value syntax).
public struct RawProperty: Hashable, Sendable {
    public var name: String
    public var parameters: [Parameter]
    public var value: String

    public init(name: String, parameters: [Parameter] = [], value: String) {
        self.name = name
        self.parameters = parameters
        self.value = value
    }

    public func parameter(_ name: String) -> String? {
        parameters.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.values.first
    }
}

/// A nested component kept whole (VALARM inside a VEVENT, or any unknown component).
public struct RawComponent: Hashable, Sendable {
    public var name: String
    public var properties: [RawProperty]
    public var components: [RawComponent]

    public init(name: String, properties: [RawProperty] = [], components: [RawComponent] = []) {
        self.name = name
        self.properties = properties
        self.components = components
    }
}
