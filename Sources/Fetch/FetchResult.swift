/// An answer and where it came from.
public struct FetchResult: Sendable {
    public var response: HTTPResponse
    public var origin: FetchOrigin
    /// The URL as requested.
    public var url: String

    public init(response: HTTPResponse, origin: FetchOrigin, url: String) {
        self.response = response
        self.origin = origin
        self.url = url
    }
}
