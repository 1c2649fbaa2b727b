/// One HTTP answer: status, headers (names lower-cased) and the whole body.
public struct HTTPResponse: Sendable, Hashable {
    /// The status code (200, 304, 404, ...).
    public var status: Int
    /// Header names in lower case.
    public var headers: [String: String]
    /// The body (empty when it went to a file: `FetchResult.bodyPath`).
    public var body: [UInt8]

    /// An answer; header names are lower-cased.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.body = body
    }

    /// A header by name, any case.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The body as text (invalid UTF-8 repaired), for messages.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The first characters of the body on one line, for error messages.
    public var bodyPreview: String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return flat.count > 200 ? String(flat.prefix(200)) + "..." : flat
    }
}
