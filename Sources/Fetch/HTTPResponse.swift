/// One HTTP answer: status, headers (names lower-cased) and the whole body.
package struct HTTPResponse: Sendable, Hashable {
    package var status: Int
    /// Header names in lower case.
    package var headers: [String: String]
    package var body: [UInt8]

    package init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.body = body
    }

    /// A header by name, any case.
    package func header(_ name: String) -> String? { headers[name.lowercased()] }

    package var isSuccess: Bool { (200..<300).contains(status) }

    /// The body as text (invalid UTF-8 repaired), for messages.
    package var text: String { String(decoding: body, as: UTF8.self) }

    /// The first characters of the body on one line, for error messages.
    package var bodyPreview: String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return flat.count > 200 ? String(flat.prefix(200)) + "..." : flat
    }
}
