import Foundation

/// Events that wait on a temporary file until the end of a run, read back in the order they came. For a sink that
/// can decide only at commit which events to write (the calendar sinks with a window keep the events that had an
/// occurrence in it): the events wait on disk, not in memory; what stays in memory is a place per event.
package final class EventSpool {
    private var file: ScratchFile?
    private let zones = ZoneTable()
    private var writer = ByteWriter()
    private var places: [(offset: Int64, length: UInt32)] = []

    package init() {}

    /// Events appended so far.
    package var count: Int { places.count }

    /// Appends the event; returns its number (0, 1, ...).
    @discardableResult
    package func append(_ event: Event) throws -> Int {
        if file == nil { file = try ScratchFile(prefix: "calpipe-spool") }
        writer.removeAll()
        event.encode(to: &writer, zones: zones)
        guard writer.count < Int(UInt32.max) else { throw CalpipeError("event \"\(event.uid)\" is too large to hold (\(writer.count) bytes)") }
        let offset = try file!.append(writer.bytes)
        places.append((offset, UInt32(writer.count)))
        return places.count - 1
    }

    /// Hands each event whose number `keep` accepts to `body`, in order.
    package func forEach(where keep: (Int) -> Bool, _ body: (Event) throws -> Void) throws {
        guard let file else { return }
        var buffer: [UInt8] = []
        for (n, place) in places.enumerated() where keep(n) {
            try file.read(at: place.offset, count: Int(place.length), into: &buffer)
            let event = try buffer.withUnsafeBytes { bytes in
                var reader = ByteReader(bytes)
                do {
                    return try Event(decoding: &reader, zones: zones)
                } catch let error as CalpipeError {
                    throw CalpipeError("a temporary file of the run is damaged (\(error.message))")
                }
            }
            try body(event)
        }
    }

    /// Frees the file and forgets the events.
    package func close() {
        file?.close()
        file = nil
        places = []
    }
}
