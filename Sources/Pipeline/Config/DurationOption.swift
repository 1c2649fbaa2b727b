import Foundation

/// Durations as pipeline files write them ("30s", "15m", "6h", "2d", or a number of seconds) and as messages
/// show them ("45 s", "15 min", "6 h", "2 d").
package enum DurationOption {
    /// Seconds, or nil when the text is not a duration.
    package static func seconds(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let unit = trimmed.last else { return nil }
        let factors: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        if let factor = factors[unit] {
            guard let value = Double(trimmed.dropLast().trimmingCharacters(in: .whitespaces)), value >= 0, value.isFinite else { return nil }
            return value * factor
        }
        guard let value = Double(trimmed), value >= 0, value.isFinite else { return nil }
        return value
    }

    /// A duration as pipeline files write it: the largest unit that divides it ("30s", "15m", "6h", "2d", "1w";
    /// "1.5s" for fractions of a second).
    package static func text(_ seconds: Double) -> String {
        guard seconds == seconds.rounded(), seconds.magnitude < 1e15 else { return JSONWriter.numberText(seconds) + "s" }
        let whole = Int64(seconds)
        for (unit, size) in [("w", Int64(604_800)), ("d", 86_400), ("h", 3600), ("m", 60)] where whole != 0 && whole % size == 0 {
            return "\(whole / size)\(unit)"
        }
        return "\(whole)s"
    }

    /// A duration for people: the largest unit that fits, rounded down ("59 s", "1 min", "2 h 5 min", "3 d 4 h").
    package static func describe(_ seconds: Double) -> String {
        let total = Int(max(0, seconds).rounded(.down))
        if total < 60 { return "\(total) s" }
        let minutes = total / 60
        if minutes < 60 { return "\(minutes) min" }
        let hours = minutes / 60
        if hours < 24 { return minutes % 60 == 0 ? "\(hours) h" : "\(hours) h \(minutes % 60) min" }
        let days = hours / 24
        return hours % 24 == 0 ? "\(days) d" : "\(days) d \(hours % 24) h"
    }
}
