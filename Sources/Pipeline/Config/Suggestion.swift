/// "Did you mean" help: the closest known name by edit distance, when it is close enough to be a likely typo.
package enum Suggestion {
    package static func closest(to word: String, in candidates: [String]) -> String? {
        let lower = word.lowercased()
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let d = distance(lower, candidate.lowercased())
            if best == nil || d < best!.distance { best = (candidate, d) }
        }
        guard let best else { return nil }
        let limit = max(2, min(lower.count, best.name.count) / 3)
        return best.distance <= limit ? best.name : nil
    }

    /// " (did you mean "x"?)" or "".
    package static func hint(for word: String, in candidates: [String]) -> String {
        closest(to: word, in: candidates).map { "; did you mean \"\($0)\"?" } ?? ""
    }

    /// Levenshtein distance with transpositions counted as one edit.
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var d = Array(repeating: Array(repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[x.count][y.count]
    }
}
