import Foundation

/// Bytes for the XML reader. libxml2 never opens files or URLs itself: every byte it parses comes through
/// an input like this (so no transparent gzip, no `file://` or `http://` loading behind our back).
package protocol XMLInput: AnyObject {
    /// Fills up to `buffer.count` bytes; returns the number written, 0 at the end of the input.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// XML already in memory.
package final class XMLBytesInput: XMLInput {
    private let bytes: [UInt8]
    private var position = 0

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    package convenience init(_ text: String) {
        self.init(Array(text.utf8))
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = min(buffer.count, bytes.count - position)
        if n > 0 {
            bytes.withUnsafeBytes { source in
                buffer.baseAddress!.copyMemory(from: source.baseAddress! + position, byteCount: n)
            }
            position += n
        }
        return n
    }
}

/// Bytes produced on demand by a closure (generated inputs, adapters over other readers).
package final class XMLGeneratedInput: XMLInput {
    private let produce: (UnsafeMutableRawBufferPointer) throws -> Int

    package init(_ produce: @escaping (UnsafeMutableRawBufferPointer) throws -> Int) {
        self.produce = produce
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try produce(buffer)
    }
}
