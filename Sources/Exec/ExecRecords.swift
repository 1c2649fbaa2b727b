import Exporters
import Importers
import Pipeline

/// The lines an `exec` plugin and its program exchange (docs/exec-plugins.md): calpipe's event JSON
/// (docs/json-format.md), one object per line.
///
/// What a program may write for a record: an event object; in a stage, also an array of events (zero or more:
/// an empty array drops the event, two split it) or `null` (drops it); and `{"error": "reason"}`, which rejects
/// the record with that reason (a sink's program may add `"uid"`). A sink's program may write
/// `{"uid": "...", "outcome": "created"}` to say what became of a record (`RecordOutcome`).
enum ExecRecords {
    /// One line of a program's output, read.
    enum Answer {
        case events([Event])
        case rejected(String)
        /// A sink's report: the record's UID and its outcome, or its failure.
        case outcome(uid: String?, RecordOutcome)
        case failed(uid: String?, String)
        /// The line could not be read as an answer: why.
        case invalid(String)
    }

    /// Reads one line. Events are built as the `json` source builds them, repairs told to `warn`.
    static func answer(_ line: ArraySlice<UInt8>, context: RunContext, warn: (String) -> Void) -> Answer {
        let value: JSONValue
        do {
            value = try line.withUnsafeBufferPointer { bytes in
                var parser = JSONParser(bytes: bytes)
                return try parser.parseDocument()
            }
        } catch let e as JSONSyntaxError {
            return .invalid("invalid JSON (column \(e.column): \(e.message))")
        } catch {
            return .invalid("invalid JSON")
        }
        switch value {
        case .null:
            return .events([])
        case .array(let items):
            var events: [Event] = []
            for (i, item) in items.enumerated() {
                switch event(item, path: "[\(i)]", context: context, warn: warn) {
                case .success(let e): events.append(e)
                case .failure(let reason): return .invalid(reason.text)
                }
            }
            return .events(events)
        case .object(let object):
            let uid = object["uid"]?.stringValue
            if let error = object["error"] {
                return uid != nil && object["title"] == nil && object["start"] == nil
                    ? .failed(uid: uid, error.stringValue ?? error.preview) : .rejected(error.stringValue ?? error.preview)
            }
            if let outcome = object["outcome"] {
                guard let name = outcome.stringValue, let known = RecordOutcome(rawValue: name) else {
                    return .invalid("unknown outcome \(outcome.preview) (expected one of: \(RecordOutcome.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                return .outcome(uid: uid, known)
            }
            switch event(value, path: nil, context: context, warn: warn) {
            case .success(let e): return .events([e])
            case .failure(let reason): return .invalid(reason.text)
            }
        default:
            return .invalid("expected an event object, got \(value.kindDescription)")
        }
    }

    private struct Reason: Error { var text: String }

    private static func event(_ value: JSONValue, path: String?, context: RunContext, warn: (String) -> Void) -> Result<Event, Reason> {
        guard case .object(let object) = value else {
            return .failure(Reason(text: "\(path.map { $0 + ": " } ?? "")expected an event object, got \(value.kindDescription)"))
        }
        do {
            let event = try EventMapping().event(lookup: { JSONValue.object(object).value(atDottedPath: $0) },
                                                 zones: context.environment.zones, strict: context.strict, warn: warn)
            return .success(event)
        } catch {
            let field = [path, error.path].compactMap { $0 }.joined(separator: ".")
            return .failure(Reason(text: field.isEmpty ? error.message : "\(field): \(error.message)"))
        }
    }

    /// One event as a line of calpipe's event JSON, with its newline.
    static func line(_ event: Event, writer: JSONBytes) -> [UInt8] {
        writer.removeAll()
        writer.event(event, level: 0)
        writer.byte(0x0A)
        return writer.bytes
    }
}

