import Pipeline

/// Groups repeated warnings of a run for text logs: the first `shown` of each kind are printed as they come, the
/// rest only counted, and `summary()` gives one line per kind with what was left out, the places of the first
/// ones and the total. A kind is the message without what changes from one record to the next: the file and line,
/// quoted names (UIDs, values) and numbers (`repaired: event "…": DTEND before DTSTART; …`).
struct WarningGroups {
    let shown: Int
    private var counts: [String: Int] = [:]
    private var order: [String] = []
    private var places: [String: [String]] = [:]

    init(shown: Int = 3) { self.shown = shown }

    /// Whether the record is printed (one of the first of its kind); counts it either way.
    mutating func admit(_ record: LogRecord) -> Bool {
        let kind = Self.kind(of: record.message)
        let n = (counts[kind] ?? 0) + 1
        counts[kind] = n
        if n == 1 { order.append(kind) }
        if n <= shown {
            if let file = record.file { places[kind, default: []].append(record.line.map { "\(file):\($0)" } ?? file) }
            return true
        }
        return false
    }

    /// `calpipe: warning: 349 more like "repaired: event "…": …" (1 of 352 was at a.ics:12, ...): printed only the
    /// first 3 of each kind (--log-level debug prints every one)`, one line per kind that had more than `shown`.
    func summary() -> [String] {
        order.compactMap { kind in
            let n = counts[kind] ?? 0
            guard n > shown else { return nil }
            var line = "\(n - shown) more like: \(kind) (\(n) in all"
            if let first = places[kind], !first.isEmpty { line += "; the first at " + first.joined(separator: ", ") }
            return line + "; --log-level debug prints every one)"
        }
    }

    /// The message with its leading `file:line: `, quoted text and numbers replaced by "…" and "N".
    static func kind(of message: String) -> String {
        var text = Substring(message)
        if let (file, line) = LogRecord.fileAndLine(message) {
            let prefix = "\(file):\(line): "
            if text.hasPrefix(prefix) { text = text.dropFirst(prefix.count) }
        }
        var out = ""
        var inQuote = false
        var lastWasDigit = false
        for ch in text {
            if ch == "\"" {
                if !inQuote { out += "\"…\"" }
                inQuote.toggle()
                lastWasDigit = false
                continue
            }
            if inQuote { continue }
            if ch.isASCII, ch.isNumber {
                if !lastWasDigit { out.append("N") }
                lastWasDigit = true
                continue
            }
            lastWasDigit = false
            out.append(ch)
        }
        return out
    }
}
