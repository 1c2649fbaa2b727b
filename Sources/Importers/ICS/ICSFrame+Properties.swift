#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Pipeline

extension ICSFrame {
    /// Reads one property line into `properties` (an event's ATTENDEE lines into `attendees` instead).
    /// `decode` turns value bytes into text (UTF-8, or Latin-1 where they are not UTF-8); `caches` (the
    /// builder's, on its thread) hold parameter sections parsed before. Malformed parameters left out of the
    /// line are added to `dropped`.
    func addProperty(_ b: UnsafeBufferPointer<UInt8>, line number: Int, decode: (UnsafeBufferPointer<UInt8>) -> String,
                     caches: ICSParameterCaches? = nil, dropped: inout [ICSContentLine.DroppedParameter]) throws(ICSContentLine.SyntaxError) {
        if kind == .event, ICSContentLine.isAttendee(b) {
            attendees.append(try ICSContentLine.parseAttendee(b, line: number, decodeValue: decode, cache: caches?.attendees, dropped: &dropped))
            return
        }
        properties.append(try ICSContentLine.parse(b, line: number, decodeValue: decode, cache: caches?.parameters, dropped: &dropped))
    }

    /// Parses the property lines the scanner left in `text` (`deferred`), in order, exactly as the scanner
    /// would have: the first malformed line fails the event, and `latin1` is told the number of each line
    /// that is not valid UTF-8. Does nothing for a frame that is not deferred.
    func parseDeferredLines(caches: ICSParameterCaches? = nil, latin1: (Int) -> Void) {
        guard deferred else { return }
        deferred = false
        let numbers = lineNumbers
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
            func lineEnd(from i: Int) -> Int {
                guard i < n, let p = memchr(base + i, 0x0A, n - i) else { return n }
                return base.distance(to: p.assumingMemoryBound(to: UInt8.self))
            }
            var i = lineEnd(from: 0) + 1
            properties.reserveCapacity(numbers.count - attendeeLines)
            if attendeeLines > 0 { attendees.reserveCapacity(attendeeLines) }
            var k = 0
            var dropped: [ICSContentLine.DroppedParameter] = []
            while k < numbers.count {
                let number = numbers[k]
                let end = lineEnd(from: i)
                guard end < n, end > i else { break }
                current = number
                do throws(ICSContentLine.SyntaxError) {
                    try addProperty(UnsafeBufferPointer(start: base + i, count: end - 1 - i), line: number, decode: decode, caches: caches,
                                    dropped: &dropped)
                    if !dropped.isEmpty {
                        for d in dropped { repair(.malformedParameter, line: number, d.reason, d.action) }
                        dropped.removeAll()
                    }
                } catch {
                    dropped.removeAll()  // of a line that is dropped as a whole
                    // A name alone on its line, its parameters and value on the next ("DTSTART", blank line,
                    // " ;VALUE=DATE", " :20031225", as one Mozilla export folds): read as one line.
                    let next = end + 1
                    let nextEnd = lineEnd(from: next)
                    if error == .noColon, k + 1 < numbers.count, nextEnd < n, nextEnd > next, base[next] == 0x3A || base[next] == 0x3B {
                        var joined = Array(UnsafeBufferPointer(start: base + i, count: end - 1 - i))
                        joined += UnsafeBufferPointer(start: base + next, count: nextEnd - 1 - next)
                        let parsed: Bool = joined.withUnsafeBufferPointer { b in
                            do throws(ICSContentLine.SyntaxError) {
                                try addProperty(b, line: number, decode: decode, caches: nil, dropped: &dropped)
                                return true
                            } catch { return false }
                        }
                        if parsed {
                            for d in dropped { repair(.malformedParameter, line: number, d.reason, d.action) }
                            dropped.removeAll()
                            i = nextEnd + 1
                            k += 2
                            continue
                        }
                    }
                    dropped.removeAll()
                    repair(.malformedLine, line: number, error.reason, "the line is dropped")
                }
                i = end + 1
                k += 1
            }
        }
    }
}
