/// A value that must not be shown: a password, a token, a key. Its description is "<redacted>" (so it never
/// reaches a message, a plan or a summary by accident); `reveal()` gives the text to the one place that sends it.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    private let text: String

    public init(_ text: String) {
        self.text = text
    }

    /// The secret itself, for the request that needs it.
    public func reveal() -> String { text }

    public var isEmpty: Bool { text.isEmpty }

    public static let redacted = "<redacted>"
    public var description: String { Self.redacted }
    public var debugDescription: String { Self.redacted }
}
