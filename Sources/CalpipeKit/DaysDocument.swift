import Foundation
import Pipeline

/// The days document (docs/json-format.md, "The days document"): an agenda's days in a zone, each with its
/// entries (and weather), as the json sink writes it with `shape: days`.
///
/// It holds the document's JSON: ``jsonData`` gives the sink's bytes, ``json`` its tree, and it codes as that
/// JSON.
public struct DaysDocument: Sendable, Equatable, Codable {
    /// The document's bytes, as the json sink wrote them.
    public let jsonData: Data
    /// The document as a JSON tree.
    public let json: JSONValue

    /// A document read from the json sink's bytes; throws when they are not JSON.
    public init(jsonData: Data) throws {
        self.jsonData = jsonData
        self.json = try JSONParser.parse(bytes: [UInt8](jsonData))
    }

    /// The days' dates (`YYYY-MM-DD`), in order.
    public var dates: [String] { json.value(atDottedPath: "days")?.arrayValue?.compactMap { $0.value(atDottedPath: "date")?.stringValue } ?? [] }

    /// The entries of the day `date` (`YYYY-MM-DD`), each a day entry object.
    public func entries(on date: String) -> [JSONValue] {
        json.value(atDottedPath: "days")?.arrayValue?.first { $0.value(atDottedPath: "date")?.stringValue == date }?
            .value(atDottedPath: "entries")?.arrayValue ?? []
    }

    public static func == (a: DaysDocument, b: DaysDocument) -> Bool { a.json == b.json }

    public init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        self.json = json
        self.jsonData = Data((JSONWriter(pretty: true).string(json) + "\n").utf8)
    }

    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}
