import CalSQLite
import Pipeline

/// The compact JSON of the sink's JSON columns (docs/sqlite-schema.md), written by the one byte writer
/// (`JSONBytes`) into a buffer the writer reuses for every row, and bound from there: the same text
/// `JSONWriter(pretty: false)` writes for the values `SQLiteRowEncoding` describes, without building a
/// `JSONValue` tree and a String per column.
package struct SQLiteJSONText {
    package init() {}

    let out = JSONBytes(pretty: false, capacity: 4096)

    func reset() { out.removeAll() }

    /// The text as a String (for comparisons with stored values).
    var string: String { out.string }

    /// Binds NULL when `empty`, else the text `write` makes (from a reset buffer) to parameter `index` of `s`.
    package mutating func bind(to s: some RowBinder, at index: Int, nullIf empty: Bool, _ write: (inout SQLiteJSONText) -> Void) throws {
        if empty { return try s.bindNull(at: index) }
        reset()
        write(&self)
        try bind(to: s, at: index)
    }

    /// Binds the text to parameter `index` of `s` (copied into the statement's own buffer for it).
    func bind(to s: some RowBinder, at index: Int) throws {
        let source = UnsafeRawBufferPointer(out.buffer)
        try s.bindText(at: index, capacity: source.count) { target in
            if source.count > 0 { target.copyMemory(from: source) }
            return source.count
        }
    }

    func quoted(_ text: String) { out.quoted(text) }

    /// `["a","b"]`
    func strings(_ items: [String]) {
        array(items) { out.quoted($0) }
    }

    /// `[e0,e1,...]`, each element written by `element`.
    private func array<Element>(_ items: [Element], _ element: (Element) -> Void) {
        out.byte(0x5B)
        for i in items.indices {
            if i > 0 { out.byte(0x2C) }
            element(items[i])
        }
        out.byte(0x5D)
    }

    /// `[{"name":...,"values":[...]}]` (`SQLiteRowEncoding.parametersJSON`)
    package func parameters(_ parameters: [Parameter]) {
        array(parameters) { parameter in
            out.raw("{\"name\":")
            out.quoted(parameter.name)
            out.raw(",\"values\":")
            strings(parameter.values)
            out.byte(0x7D)
        }
    }

    /// `{"name":...,"parameters":[...]?,"value":...}` (`SQLiteRowEncoding.propertyJSON`)
    func property(_ p: RawProperty) {
        out.raw("{\"name\":")
        out.quoted(p.name)
        if !p.parameters.isEmpty {
            out.raw(",\"parameters\":")
            parameters(p.parameters)
        }
        out.raw(",\"value\":")
        out.quoted(p.value)
        out.byte(0x7D)
    }

    func properties(_ items: [RawProperty]) {
        array(items) { property($0) }
    }

    /// `{"name":...,"properties":[...],"components":[...]?}` (`SQLiteRowEncoding.componentJSON`)
    func component(_ c: RawComponent) {
        out.raw("{\"name\":")
        out.quoted(c.name)
        out.raw(",\"properties\":")
        properties(c.properties)
        if !c.components.isEmpty {
            out.raw(",\"components\":")
            components(c.components)
        }
        out.byte(0x7D)
    }

    func components(_ items: [RawComponent]) {
        array(items) { component($0) }
    }

    /// `{"SUMMARY":[parameters...]}`, keys sorted.
    func fieldParameters(_ map: [String: [Parameter]]) {
        out.byte(0x7B)
        var first = true
        for entry in map.sorted(by: { $0.key < $1.key }) {
            out.key(entry.key, level: 0, first: &first)
            parameters(entry.value)
        }
        out.byte(0x7D)
    }

    /// The metadata without the runner's "source" stamp, keys sorted (`SQLiteRowEncoding.metadataJSON`).
    func metadata(_ map: [String: String]) {
        out.byte(0x7B)
        var first = true
        for entry in map.sorted(by: { $0.key < $1.key }) where entry.key != "source" {
            out.key(entry.key, level: 0, first: &first)
            out.quoted(entry.value)
        }
        out.byte(0x7D)
    }
}
