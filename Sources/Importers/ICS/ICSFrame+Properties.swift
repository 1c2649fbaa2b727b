import Pipeline

extension ICSFrame {
    /// Reads one property line into `properties` (an event's ATTENDEE lines also into `attendees`).
    /// `decode` turns value bytes into text (UTF-8, or Latin-1 where they are not UTF-8).
    func addProperty(_ b: UnsafeBufferPointer<UInt8>, line number: Int,
                     decode: (UnsafeBufferPointer<UInt8>) -> String) throws(ICSContentLine.SyntaxError) {
        if kind == .event, ICSContentLine.isAttendee(b) {
            let (parsed, attendee) = try ICSContentLine.parseAttendee(b, line: number, decodeValue: decode)
            properties.append(consume parsed)
            attendees.append(consume attendee)
            return
        }
        properties.append(try ICSContentLine.parse(b, line: number, decodeValue: decode))
    }

    /// Parses the property lines the scanner left in `text` (`deferred`), in order, exactly as the scanner
    /// would have: the first malformed line fails the event, and `latin1` is told the number of each line
    /// that is not valid UTF-8. Does nothing for a frame that is not deferred.
    func parseDeferredLines(latin1: (Int) -> Void) {
        guard deferred else { return }
        deferred = false
        let numbers = lineNumbers
        lineNumbers = []
        var current = 0
        func decode(_ value: UnsafeBufferPointer<UInt8>) -> String {
            let (text, valid) = ICSText.decode(value)
            if !valid { latin1(current) }
            return text
        }
        let bytes = text
        bytes.withUnsafeBufferPointer { t in
            guard let base = t.baseAddress else { return }
            let n = t.count
            // `text` is BEGIN:VEVENT, the property lines, END:VEVENT, each followed by the CRLF the scanner
            // added (a logical line never holds an LF).
            var i = 0
            while i < n, t[i] != 0x0A { i += 1 }
            i += 1
            for number in numbers {
                var end = i
                while end < n, t[end] != 0x0A { end += 1 }
                guard end < n, end > i else { break }
                current = number
                do throws(ICSContentLine.SyntaxError) {
                    try addProperty(UnsafeBufferPointer(start: base + i, count: end - 1 - i), line: number, decode: decode)
                } catch {
                    fail(line: number, error.reason)
                }
                i = end + 1
            }
        }
    }
}
