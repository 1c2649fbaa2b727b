import Pipeline

/// Tells quickly whether text is in NFC (Unicode normalization form C), for the JSON days spool, which compares
/// titles as bytes when both are (Swift compares Strings by their NFC scalars).
///
/// A scalar is an "inert starter" when its canonical combining class is 0 and its NFC quick-check value is Yes:
/// text made only of inert starters is in NFC (UAX #15's quick check answers YES for it), whatever their order.
/// The table learns each scalar's answer from the standard library the first time it meets it (two bits per
/// scalar, 272 KiB, owned by one spool). Text with any other scalar goes to the standard library's full check.
final class NFCStarterTable {
    private var known = [UInt64](repeating: 0, count: 0x110000 / 64)
    private var inert = [UInt64](repeating: 0, count: 0x110000 / 64)

    /// Whether `text` is in NFC; the same answer as `UTF8Span.checkForNFC(quickCheck: false)`.
    func isNFC(_ text: String) -> Bool {
        let allInert = JSONBytes.withUTF8(text) { utf8 -> Bool in
            var i = 0
            let n = utf8.count
            while i < n {
                let b = utf8[i]
                if b < 0x80 {
                    i += 1
                    continue
                }
                // Valid UTF-8 (a String's): a lead byte and its continuation bytes.
                var v: UInt32
                if b < 0xE0 {
                    v = UInt32(b & 0x1F) << 6 | UInt32(utf8[i + 1] & 0x3F)
                    i += 2
                } else if b < 0xF0 {
                    v = UInt32(b & 0x0F) << 12 | UInt32(utf8[i + 1] & 0x3F) << 6
                    v |= UInt32(utf8[i + 2] & 0x3F)
                    i += 3
                } else {
                    v = UInt32(b & 0x07) << 18 | UInt32(utf8[i + 1] & 0x3F) << 12
                    v |= UInt32(utf8[i + 2] & 0x3F) << 6 | UInt32(utf8[i + 3] & 0x3F)
                    i += 4
                }
                if !isInertStarter(v) { return false }
            }
            return true
        }
        return allInert || Self.fullCheck(text)
    }

    /// Canonical combining class 0 and NFC quick check Yes.
    func isInertStarter(_ v: UInt32) -> Bool {
        let word = Int(v >> 6), bit = UInt64(1) << (v & 63)
        if known[word] & bit != 0 { return inert[word] & bit != 0 }
        var answer = false
        if let scalar = Unicode.Scalar(v), scalar.properties.canonicalCombiningClass == .notReordered {
            answer = Self.quickCheck(String(scalar))
        }
        known[word] |= bit
        if answer { inert[word] |= bit }
        return answer
    }

    /// The standard library's NFC check: `quick` answers true only when the quick check alone proves NFC
    /// (for one scalar: its NFC quick-check value is Yes). False where the check is not available.
    static func quickCheck(_ text: String) -> Bool {
        if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
            var span = text.utf8Span
            return span.checkForNFC(quickCheck: true)
        }
        return false
    }

    static func fullCheck(_ text: String) -> Bool {
        if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
            var span = text.utf8Span
            return span.checkForNFC(quickCheck: false)
        }
        return false
    }
}
