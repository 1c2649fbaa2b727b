import CalSQLite
import Pipeline

/// The compact JSON of the sink's JSON columns (docs/sqlite-schema.md), written as UTF-8 bytes into one buffer
/// that the writer reuses for every row and bound from there: the same text `JSONWriter(pretty: false)` writes
/// for the values `SQLiteRowEncoding` describes, without building a `JSONValue` tree and a String per column.
struct SQLiteJSONText {
    private(set) var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(4096)
    }

    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// The text as a String (for comparisons with stored values).
    var string: String { String(decoding: bytes, as: UTF8.self) }

    /// Binds NULL when `empty`, else the text `write` makes (from a reset buffer) to parameter `index` of `s`.
    mutating func bind(to s: Statement, at index: Int, nullIf empty: Bool, _ write: (inout SQLiteJSONText) -> Void) throws {
        if empty { return try s.bindNull(at: index) }
        reset()
        write(&self)
        try bind(to: s, at: index)
    }

    /// Binds the text to parameter `index` of `s` (copied into the statement's own buffer for it).
    func bind(to s: Statement, at index: Int) throws {
        try bytes.withUnsafeBytes { source in
            try s.bindText(at: index, capacity: source.count) { target in
                if source.count > 0 { target.copyMemory(from: source) }
                return source.count
            }
        }
    }

    private mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// A JSON string, escaped as `JSONWriter.appendQuoted` does: `"` `\` and control characters (`\n`, `\r`,
    /// `\t`, else `\u00xx`); everything else, non-ASCII included, as is.
    mutating func quoted(_ text: String) {
        bytes.append(0x22)
        var text = text
        text.withUTF8 { utf8 in
            var plain = true
            for u in utf8 where u < 0x20 || u == 0x22 || u == 0x5C {
                plain = false
                break
            }
            if plain {
                bytes.append(contentsOf: utf8)
                return
            }
            let hex: StaticString = "0123456789abcdef"
            for u in utf8 {
                switch u {
                case 0x22: bytes.append(0x5C); bytes.append(0x22)
                case 0x5C: bytes.append(0x5C); bytes.append(0x5C)
                case 0x0A: bytes.append(0x5C); bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(0x5C); bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(0x5C); bytes.append(UInt8(ascii: "t"))
                case 0..<0x20:
                    raw("\\u00")
                    hex.withUTF8Buffer { digits in
                        bytes.append(digits[Int(u >> 4)])
                        bytes.append(digits[Int(u & 15)])
                    }
                default: bytes.append(u)
                }
            }
        }
        bytes.append(0x22)
    }

    /// `["a","b"]`
    mutating func strings(_ items: [String]) {
        array(items) { $0.quoted($1) }
    }

    /// `[e0,e1,...]`, each element written by `element`.
    private mutating func array<Element>(_ items: [Element], _ element: (inout SQLiteJSONText, Element) -> Void) {
        raw("[")
        for i in items.indices {
            if i > 0 { raw(",") }
            element(&self, items[i])
        }
        raw("]")
    }

    /// `[{"name":...,"values":[...]}]` (`SQLiteRowEncoding.parametersJSON`)
    mutating func parameters(_ parameters: [Parameter]) {
        array(parameters) { json, parameter in
            json.raw("{\"name\":")
            json.quoted(parameter.name)
            json.raw(",\"values\":")
            json.strings(parameter.values)
            json.raw("}")
        }
    }

    /// `{"name":...,"parameters":[...]?,"value":...}` (`SQLiteRowEncoding.propertyJSON`)
    mutating func property(_ p: RawProperty) {
        raw("{\"name\":")
        quoted(p.name)
        if !p.parameters.isEmpty {
            raw(",\"parameters\":")
            parameters(p.parameters)
        }
        raw(",\"value\":")
        quoted(p.value)
        raw("}")
    }

    mutating func properties(_ items: [RawProperty]) {
        array(items) { $0.property($1) }
    }

    /// `{"name":...,"properties":[...],"components":[...]?}` (`SQLiteRowEncoding.componentJSON`)
    mutating func component(_ c: RawComponent) {
        raw("{\"name\":")
        quoted(c.name)
        raw(",\"properties\":")
        properties(c.properties)
        if !c.components.isEmpty {
            raw(",\"components\":")
            components(c.components)
        }
        raw("}")
    }

    mutating func components(_ items: [RawComponent]) {
        array(items) { $0.component($1) }
    }

    /// `{"SUMMARY":[parameters...]}`, keys sorted.
    mutating func fieldParameters(_ map: [String: [Parameter]]) {
        raw("{")
        for (i, entry) in map.sorted(by: { $0.key < $1.key }).enumerated() {
            if i > 0 { raw(",") }
            quoted(entry.key)
            raw(":")
            parameters(entry.value)
        }
        raw("}")
    }

    /// The metadata without the runner's "source" stamp, keys sorted (`SQLiteRowEncoding.metadataJSON`).
    mutating func metadata(_ map: [String: String]) {
        raw("{")
        var first = true
        for entry in map.sorted(by: { $0.key < $1.key }) where entry.key != "source" {
            if !first { raw(",") }
            first = false
            quoted(entry.key)
            raw(":")
            quoted(entry.value)
        }
        raw("}")
    }
}
