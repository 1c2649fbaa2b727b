/// One `--set KEY=VALUE` of the command line: a value put into the pipeline file before it is read, at a dotted
/// JSON path (`window.from=today-1d`, `sinks[0].path=out/today.json`, `stages[1].provider=file`). The value is
/// read as JSON when it is JSON (`true`, `3`, `{"name": "Berlin"}`, `"quoted"`), else taken as a string.
public struct PipelineOverride: Sendable, Hashable {
    public enum Step: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    /// The text as given, for messages.
    public let text: String
    public let steps: [Step]
    public let value: JSONValue

    /// Reads `KEY=VALUE`; the message says what is wrong.
    public init(parsing text: String) throws(CalpipeError) {
        self.text = text
        guard let equals = text.firstIndex(of: "=") else {
            throw Self.issue(text, "expected KEY=VALUE, such as window.from=today-1d")
        }
        let path = String(text[..<equals])
        let rawValue = String(text[text.index(after: equals)...])
        var steps: [Step] = []
        for part in path.split(separator: ".", omittingEmptySubsequences: false) {
            var rest = Substring(part)
            let name = rest.prefix { $0 != "[" }
            if name.isEmpty && steps.isEmpty { throw Self.issue(text, "the key is empty (expected KEY=VALUE, such as window.from=today-1d)") }
            if !name.isEmpty { steps.append(.key(String(name))) } else if !rest.hasPrefix("[") { throw Self.issue(text, "empty part in \"\(path)\"") }
            rest = rest.dropFirst(name.count)
            while rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]"), let index = Int(rest[rest.index(after: rest.startIndex)..<close]), index >= 0 else {
                    throw Self.issue(text, "expected an index such as [0] in \"\(path)\"")
                }
                steps.append(.index(index))
                rest = rest[rest.index(after: close)...]
            }
            if !rest.isEmpty { throw Self.issue(text, "unexpected \"\(rest)\" in \"\(path)\"") }
        }
        self.steps = steps
        value = (try? JSONParser.parse(rawValue)) ?? .string(rawValue)
    }

    /// The document with the value put in place; missing object keys are made, array items must exist.
    public func apply(to document: JSONValue) throws(CalpipeError) -> JSONValue {
        try put(value, at: steps[...], in: document, walked: "")
    }

    private func put(_ value: JSONValue, at steps: ArraySlice<Step>, in node: JSONValue, walked: String) throws(CalpipeError) -> JSONValue {
        guard let step = steps.first else { return value }
        switch step {
        case .key(let key):
            let here = walked.isEmpty ? key : walked + "." + key
            var object: JSONObject
            switch node {
            case .object(let o): object = o
            case .null: object = JSONObject()
            default: throw Self.issue(text, "\(walked.isEmpty ? "the pipeline" : walked) is \(node.kindDescription), not an object")
            }
            object[key] = try put(value, at: steps.dropFirst(), in: object[key] ?? .null, walked: here)
            return .object(object)
        case .index(let index):
            let here = walked + "[\(index)]"
            guard case .array(var items) = node else {
                throw Self.issue(text, "\(walked) is \(node.kindDescription), not an array")
            }
            guard index < items.count else {
                throw Self.issue(text, "\(here) does not exist (\(walked) has \(items.count) item\(items.count == 1 ? "" : "s"))")
            }
            items[index] = try put(value, at: steps.dropFirst(), in: items[index], walked: here)
            return .array(items)
        }
    }

    private static func issue(_ text: String, _ message: String) -> CalpipeError {
        CalpipeError.config(file: "--set \(text)", path: "", message)
    }
}
