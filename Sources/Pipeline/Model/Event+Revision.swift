/// Which of two copies of one component is the later revision (RFC 5546 2.1.4 and 2.1.5): the higher
/// SEQUENCE wins, then the later DTSTAMP. Used where a feed publishes a series twice (two VCALENDARs with
/// the same UID in one file, an override repeated).
extension Event {
    /// SEQUENCE as written (0 when absent or not a number, RFC 5545 3.8.7.4's default).
    package var sequenceNumber: Int {
        guard let p = otherProperties.first(where: { $0.name == "SEQUENCE" }) else { return 0 }
        return Int(p.value.trimmingCharactersASCIIWhitespace()) ?? 0
    }

    /// DTSTAMP as a sortable text ("20260101T000000Z" read as "20260101T000000"): nil when absent or not
    /// a UTC date-time of the RFC 5545 form.
    package var stampText: String? {
        guard let p = otherProperties.first(where: { $0.name == "DTSTAMP" }) else { return nil }
        let v = Array(p.value.trimmingCharactersASCIIWhitespace().uppercased().utf8)
        guard v.count == 16, v[8] == 0x54, v[15] == 0x5A,
              v[0..<8].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), v[9..<15].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return String(decoding: v[0..<15], as: UTF8.self)
    }

    /// How this copy's revision compares with `other`'s: > 0 later, < 0 earlier, 0 when SEQUENCE and DTSTAMP
    /// tell nothing apart (a DTSTAMP only one of them has, or that one cannot read, is not compared).
    package func revisionOrder(comparedTo other: Event) -> Int {
        let (a, b) = (sequenceNumber, other.sequenceNumber)
        if a != b { return a < b ? -1 : 1 }
        if let s = stampText, let t = other.stampText, s != t { return s < t ? -1 : 1 }
        return 0
    }

    /// The same component: every field, the source text and the metadata; where it was read is not compared.
    package func isCopy(of other: Event) -> Bool {
        var a = self, b = other
        a.origin = nil
        b.origin = nil
        return a == b
    }
}

private extension String {
    func trimmingCharactersASCIIWhitespace() -> Substring {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}
