/// Someone taking part in an event (ATTENDEE), or its organizer (ORGANIZER, role and status unused).
public struct Attendee: Hashable, Sendable {
    public var name: String?
    /// The address without its "mailto:" scheme.
    public var email: String?
    /// REQ-PARTICIPANT, OPT-PARTICIPANT, CHAIR, NON-PARTICIPANT or an x-name, as written.
    public var role: String?
    /// NEEDS-ACTION, ACCEPTED, DECLINED, TENTATIVE, DELEGATED or an x-name, as written.
    public var status: String?
    /// Parameters calpipe has no field for (RSVP, CUTYPE, ...), kept for round trips.
    public var otherParameters: [Parameter]

    public init(name: String? = nil, email: String? = nil, role: String? = nil, status: String? = nil, otherParameters: [Parameter] = []) {
        self.name = name
        self.email = email
        self.role = role
        self.status = status
        self.otherParameters = otherParameters
    }
}
