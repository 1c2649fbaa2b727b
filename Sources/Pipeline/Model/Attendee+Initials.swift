/// Initials for an avatar: the first letters of the first and last words of the name ("Anna Maria Schmidt"
/// gives "AS", "Ben" gives "B"); without a name, the same from the address's local part split at `.`, `_`,
/// `-` and `+` ("ben.meyer@example.org" gives "BM"); upper-cased. Nil when there is neither.
extension Attendee {
    public var initials: String? {
        if let name, let found = Self.initials(of: name, separators: { $0.isWhitespace }) { return found }
        if let email {
            let local = email.split(separator: "@", maxSplits: 1).first.map(String.init) ?? email
            return Self.initials(of: local, separators: { $0 == "." || $0 == "_" || $0 == "-" || $0 == "+" })
        }
        return nil
    }

    static func initials(of text: String, separators: (Character) -> Bool) -> String? {
        // Words that start with a letter; quotes, brackets and digits are skipped.
        let words = text.split(whereSeparator: separators).compactMap { word -> Character? in word.first(where: { $0.isLetter }) }
        guard let first = words.first else { return nil }
        let letters = words.count > 1 ? [first, words[words.count - 1]] : [first]
        return String(letters).uppercased()
    }
}
