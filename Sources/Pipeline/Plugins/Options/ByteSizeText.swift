/// Sizes as pipeline files write them: "512KB", "10MB", "1GB" (powers of 1000), "64KiB", "1MiB" (powers of 1024),
/// "100B" or a plain number of bytes.
package enum ByteSizeText {
    static let units: [(name: String, factor: Int)] = [
        ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("TiB", 1 << 40),
        ("KB", 1_000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("TB", 1_000_000_000_000), ("B", 1),
    ]

    /// Bytes, or nil when the text is not a size.
    package static func bytes(_ text: String) -> Int? {
        let trimmed = text.trimmingWhitespaceAndCase()
        var number = Substring(trimmed), factor = 1
        for unit in units where trimmed.hasSuffix(unit.name.uppercased()) {
            number = trimmed.dropLast(unit.name.count)
            factor = unit.factor
            break
        }
        guard let value = Double(number.trimmingSpaces()), value >= 0, value.isFinite, value * Double(factor) < 9e15 else { return nil }
        let bytes = value * Double(factor)
        guard bytes == bytes.rounded() else { return nil }
        return Int(bytes)
    }

    /// The largest unit that divides the size: "10MB", "64KiB", "100B".
    package static func text(_ bytes: Int) -> String {
        for unit in units.sorted(by: { $0.factor > $1.factor }) where unit.factor > 1 && bytes != 0 && bytes % unit.factor == 0 {
            return "\(bytes / unit.factor)\(unit.name)"
        }
        return "\(bytes)B"
    }
}

private extension String {
    func trimmingWhitespaceAndCase() -> String {
        String(Substring(self).trimmingSpaces()).uppercased()
    }
}

private extension Substring {
    func trimmingSpaces() -> Substring {
        var s = self
        while s.first?.isWhitespace == true { s = s.dropFirst() }
        while s.last?.isWhitespace == true { s = s.dropLast() }
        return s
    }
}
