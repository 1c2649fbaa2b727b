import Pipeline

/// `Attendee.initials`, remembered per name and per address: the same people come back in entry after entry,
/// and working out initials (Unicode-aware) cost more than writing the rest of an entry. Bounded: forgets
/// everything past `limit` texts.
final class AttendeeInitials {
    private var byName: [String: String?] = [:]
    private var byEmail: [String: String?] = [:]
    private let limit = 4096

    /// The same as `attendee.initials`.
    func of(_ attendee: Attendee) -> String? {
        if let name = attendee.name, let found = Self.lookup(name, in: &byName, emailLocalPart: false, limit: limit) { return found }
        if let email = attendee.email { return Self.lookup(email, in: &byEmail, emailLocalPart: true, limit: limit) }
        return nil
    }

    private static func lookup(_ text: String, in cache: inout [String: String?], emailLocalPart: Bool, limit: Int) -> String? {
        if let known = cache[text] { return known }
        let found = Attendee.initials(of: text, emailLocalPart: emailLocalPart)
        if cache.count >= limit { cache.removeAll(keepingCapacity: true) }
        cache[text] = .some(found)
        return found
    }
}
