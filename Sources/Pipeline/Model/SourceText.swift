/// An event's original component text (`Event.sourceText`), kept as the reader's UTF-8 bytes and decoded into a
/// `String` only when something reads it. Most pipelines never read it (only the sqlite sink stores it), and
/// decoding, which validates every byte, cost more than anything else an ICS reader does per event.
struct SourceText: Hashable, Sendable {
    private enum Storage: Sendable {
        case text(String)
        case utf8([UInt8])
    }

    private let storage: Storage

    init(_ text: String) { storage = .text(text) }

    /// Bytes as read; invalid UTF-8 in them becomes U+FFFD when decoded, as `String(decoding:as:)` does.
    init(utf8 bytes: [UInt8]) { storage = .utf8(bytes) }

    var string: String {
        switch storage {
        case .text(let s): return s
        case .utf8(let b): return String(decoding: b, as: UTF8.self)
        }
    }

    /// The length in UTF-8 bytes (before any repair), without decoding.
    var utf8Count: Int {
        switch storage {
        case .text(let s): return s.utf8.count
        case .utf8(let b): return b.count
        }
    }

    /// Calls `body` with the UTF-8 bytes, without decoding (bytes as read: not repaired).
    func withUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        switch storage {
        case .text(var s): return try s.withUTF8(body)
        case .utf8(let b): return try b.withUnsafeBufferPointer(body)
        }
    }

    static func == (a: SourceText, b: SourceText) -> Bool { a.string == b.string }
    func hash(into hasher: inout Hasher) { hasher.combine(string) }
}
