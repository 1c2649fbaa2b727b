/// `${NAME}` and `${NAME:-default}` in pipeline strings. `$$` writes a literal `$`.
public enum EnvironmentInterpolation {
    public static func expand(_ text: String, environment: [String: String]) throws(CalpipeError) -> String {
        guard text.contains("$") else { return text }
        var out = ""
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            guard c == "$" else { out.append(c); i = text.index(after: i); continue }
            let next = text.index(after: i)
            if next < text.endIndex, text[next] == "$" { out.append("$"); i = text.index(after: next); continue }
            guard next < text.endIndex, text[next] == "{" else { out.append(c); i = next; continue }
            guard let close = text[next...].firstIndex(of: "}") else { throw malformed(String(text[i...])) }
            let body = text[text.index(after: next)..<close]
            let name: Substring
            var fallback: Substring?
            if let sep = body.range(of: ":-") {
                name = body[..<sep.lowerBound]
                fallback = body[sep.upperBound...]
            } else {
                name = body
            }
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw malformed(String(text[i...close]))
            }
            if let value = environment[String(name)], !(fallback != nil && value.isEmpty) {
                out += value
            } else if let fallback {
                out += fallback
            } else {
                throw CalpipeError("environment variable \(name) is not set (write ${\(name):-default} for a fallback)")
            }
            i = text.index(after: close)
        }
        return out
    }

    private static func malformed(_ text: some StringProtocol) -> CalpipeError {
        CalpipeError("malformed variable reference \"\(text)\" (expected ${NAME} or ${NAME:-default})")
    }

    /// Expands every string in a JSON tree, reporting each failure at its JSON path.
    static func expand(_ value: JSONValue, path: String, environment: [String: String], diagnostics: ConfigDiagnostics) -> JSONValue {
        switch value {
        case .string(let s):
            do {
                return .string(try expand(s, environment: environment))
            } catch {
                diagnostics.add(path, error.message)
            }
            return value
        case .array(let items):
            return .array(items.enumerated().map { expand($1, path: "\(path)[\($0)]", environment: environment, diagnostics: diagnostics) })
        case .object(let o):
            return .object(JSONObject(o.members.map { ($0.key, expand($0.value, path: path.isEmpty ? $0.key : "\(path).\($0.key)", environment: environment, diagnostics: diagnostics)) }))
        default:
            return value
        }
    }
}
