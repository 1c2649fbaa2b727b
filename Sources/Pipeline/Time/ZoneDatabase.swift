import Foundation

/// Resolves zone names to `Zone` values and keeps each one it built, so a run builds every zone once.
///
/// One instance per run, passed in the run context; it is not a global. Thread-safe.
public final class ZoneDatabase: Sendable {
    private let cache = Locked<[String: Zone]>([:])
    /// Extra name mappings consulted before the system database (e.g. Windows zone names -> IANA).
    private let aliases: [String: String]

    public init(aliases: [String: String] = WindowsZones.ianaByWindowsName) {
        self.aliases = aliases
    }

    /// An IANA zone by name, also accepting prefixed names such as "/mozilla.org/20050126_1/Europe/Berlin"
    /// and the alias table. Nil when nothing matches.
    public func zone(named rawName: String) -> Zone? {
        let name = rawName.trimmingCharacters(in: .whitespaces)
        if let hit = cache.withLock({ $0[name] }) { return hit }
        let zone = resolve(name)
        if let zone { cache.withLock { $0[name] = zone } }
        return zone
    }

    private func resolve(_ name: String) -> Zone? {
        if name.uppercased() == "UTC" || name.uppercased() == "Z" || name == "Etc/UTC" || name == "GMT" {
            return Zone.system(identifier: "UTC") ?? .utc
        }
        if let alias = aliases[name], let zone = Zone.system(identifier: alias) { return zone }
        if let zone = Zone.system(identifier: name) { return zone }
        // Prefixed names: try ever shorter suffixes of two or three path components ("Europe/Berlin",
        // "America/Argentina/Buenos_Aires").
        let parts = name.split(separator: "/").map(String.init)
        if parts.count > 2 {
            for take in [3, 2] where parts.count > take {
                let candidate = parts.suffix(take).joined(separator: "/")
                if let zone = Zone.system(identifier: candidate) { return zone }
            }
        }
        return nil
    }

    /// "; did you mean \"Europe/Berlin\"?" for a misspelt zone name (the closest IANA name), or "".
    public static func hint(for name: String) -> String {
        Suggestion.hint(for: name, in: TimeZone.knownTimeZoneIdentifiers + ["UTC"])
    }

    /// Registers a zone under its identifier (for VTIMEZONE definitions read from a file).
    public func register(_ zone: Zone) {
        cache.withLock { $0[zone.identifier] = zone }
    }

    /// The zone calpipe uses when none is configured: the TZ environment variable, then the system zone.
    public func defaultZone(environment: [String: String]) -> Zone {
        if let tz = environment["TZ"], !tz.isEmpty {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            if let zone = zone(named: name) { return zone }
        }
        return zone(named: TimeZone.current.identifier) ?? .utc
    }

    /// The IANA name closest to a mistyped one, for "did you mean": by the whole name ("Europe/Berlni"), else by
    /// its city ("berlin", "New York" -> "America/New_York").
    public func suggestion(for name: String) -> String? {
        let known = TimeZone.knownTimeZoneIdentifiers
        if let whole = Suggestion.closest(to: name, in: known) { return whole }
        let city = name.split(separator: "/").last.map { $0.replacingOccurrences(of: " ", with: "_") } ?? name
        let cities = known.map { $0.split(separator: "/").last.map(String.init) ?? $0 }
        guard let match = Suggestion.closest(to: city, in: cities) else { return nil }
        return known[cities.firstIndex(of: match)!]
    }
}
