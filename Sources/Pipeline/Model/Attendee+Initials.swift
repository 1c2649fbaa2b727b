/// Initials for an avatar: the first letters of the first and last words of the name ("Anna Maria Schmidt"
/// gives "AS", "Ben" gives "B"); without a name, the same from the address's local part split at `.`, `_`,
/// `-` and `+` ("ben.meyer@example.org" gives "BM"); upper-cased. Nil when there is neither.
///
/// Read byte by byte (the JSON days sink asks for it for every attendee of every entry): ASCII letters are
/// taken and upper-cased directly; a word starting with a non-ASCII letter gives that letter upper-cased.
extension Attendee {
    public var initials: String? {
        if let name, let found = Self.initials(of: name, emailLocalPart: false) { return found }
        if let email { return Self.initials(of: email, emailLocalPart: true) }
        return nil
    }

    package static func initials(of text: String, emailLocalPart: Bool) -> String? {
        var text = text
        return text.withUTF8 { bytes -> String? in
            // The first letter of the first word and of the last word seen so far, as byte ranges.
            var first: Range<Int>?
            var last: Range<Int>?
            var inWord = false
            var wordHasLetter = false
            var i = 0
            while i < bytes.count {
                let b = bytes[i]
                if emailLocalPart && b == 0x40 { break }  // "@": the local part ends
                let separator = emailLocalPart ? (b == 0x2E || b == 0x5F || b == 0x2D || b == 0x2B) : (b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D)
                if separator {
                    inWord = false
                    i += 1
                    continue
                }
                if !inWord {
                    inWord = true
                    wordHasLetter = false
                }
                let length = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
                if !wordHasLetter {
                    let isLetter: Bool
                    if b < 0x80 {
                        isLetter = (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                    } else {
                        let end = min(bytes.count, i + length)
                        let scalar = String(decoding: UnsafeBufferPointer(rebasing: bytes[i..<end]), as: UTF8.self).unicodeScalars.first
                        isLetter = scalar?.properties.isAlphabetic ?? false
                    }
                    if isLetter {
                        wordHasLetter = true
                        let range = i..<min(bytes.count, i + length)
                        if first == nil { first = range } else { last = range }
                    }
                }
                i += length
            }
            guard let first else { return nil }
            var out = String(decoding: UnsafeBufferPointer(rebasing: bytes[first]), as: UTF8.self)
            if let last { out += String(decoding: UnsafeBufferPointer(rebasing: bytes[last]), as: UTF8.self) }
            // Upper-casing ASCII-only text is cheap; other letters go through Unicode's mapping.
            return out.uppercased()
        }
    }
}
