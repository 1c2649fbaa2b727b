extension PluginOptions {
    /// Checks the options object against the declared list, before the plugin reads it: every key is declared
    /// (else `unknown option (expected one of: ...); did you mean "..."?`), every required option is there, every
    /// value has its declared kind, and a value from a fixed set is one of them. Each problem is reported once
    /// with its JSON path; the plugin's own reads then see only well-typed values or report what they mean.
    package func checkDeclared() {
        guard let declared else { return }
        let names = declared.map(\.name)
        for key in object.keys where key != "type" && !names.contains(key) {
            if names.isEmpty { report(key, "unknown option (this plugin takes no options)"); continue }
            report(key, "unknown option (expected one of: \(names.joined(separator: ", ")))" + Suggestion.hint(for: key, in: names))
        }
        for doc in declared {
            guard let value = object[doc.name] else {
                if doc.required { report(doc.name, "missing required option (expected \(doc.kind.expectation))") }
                continue
            }
            guard doc.kind.accepts(value) else {
                report(doc.name, "expected \(doc.kind.expectation), got \(value.kindDescription) \(value.preview)")
                continue
            }
            if doc.kind == .color, case .string(let s) = value, CSSColor.hex(s) == nil {
                report(doc.name, CSSColor.problem(s))
                continue
            }
            if !doc.values.isEmpty, case .string(let s) = value, !doc.values.contains(s) {
                report(doc.name, "unknown value \"\(s)\" (expected one of: \(doc.values.joined(separator: ", ")))" + Suggestion.hint(for: s, in: doc.values))
            }
        }
    }
}
