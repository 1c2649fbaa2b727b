extension Event {
    /// TRANSP as written ("OPAQUE" or "TRANSPARENT"); "OPAQUE" when the event has none (RFC 5545 3.8.2.7).
    /// calpipe keeps TRANSP with the properties it has no field for (`otherProperties`).
    var transparency: String {
        get { otherProperties.first { $0.name.uppercased() == "TRANSP" }?.value ?? "OPAQUE" }
        set {
            otherProperties.removeAll { $0.name.uppercased() == "TRANSP" }
            otherProperties.append(RawProperty(name: "TRANSP", value: newValue))
        }
    }
}
