/// The zones of events written with the binary codec, by number: a record holds a zone's index, the table
/// holds the zone itself. Zones are matched by identity, so every zone comes back as the very object that
/// went in, a VTIMEZONE-defined one (known only to the file that defined it) as much as an IANA one.
///
/// One table serves the records it numbered (one run's scratch file); it keeps its zones alive meanwhile.
package final class ZoneTable {
    private var zones: [Zone] = []
    private var indexByIdentity: [ObjectIdentifier: Int] = [:]
    /// The zone numbered last: feeds use one or two zones, so most lookups stop here.
    private var lastZone: Zone?
    private var lastIndex = 0

    package init() {}

    package var count: Int { zones.count }

    /// The zone's number, adding it when new.
    package func index(of zone: Zone) -> Int {
        if let last = lastZone, last === zone { return lastIndex }
        let id = ObjectIdentifier(zone)
        let index: Int
        if let known = indexByIdentity[id] {
            index = known
        } else {
            index = zones.count
            zones.append(zone)
            indexByIdentity[id] = index
        }
        lastZone = zone
        lastIndex = index
        return index
    }

    /// The zone numbered `index`; nil when the table has no such number.
    package func zone(at index: Int) -> Zone? {
        zones.indices.contains(index) ? zones[index] : nil
    }
}
