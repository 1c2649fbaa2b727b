import Pipeline

/// The json sink's array of records (`shape: events`), for values held in memory: the same writer
/// (`JSONBytes.event`) and the same framing as `JSONExporter`, so the bytes are the sink's.
package enum JSONRecords {
    package static func events(_ events: [Event], pretty: Bool = true) -> [UInt8] {
        let out = JSONBytes(pretty: pretty)
        out.raw("[")
        for (i, event) in events.enumerated() {
            if i > 0 { out.byte(0x2C) }
            if pretty { out.raw("\n  ") }
            out.event(event, level: 1)
        }
        out.append(pretty && !events.isEmpty ? "\n]\n" : "]\n")
        return out.bytes
    }
}
