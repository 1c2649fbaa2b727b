import Pipeline

/// Reads a jCal document in chunks and hands out one JSON value at a time (the calendar's name, its
/// properties, then each component), so only the component being read is ever held in memory.
/// Each value's bytes are found by a small scanner and parsed with `JSONParser`.
final class JCalStream {
    private let reader: ChunkReader
    let label: String
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    /// Line and column bookkeeping: `line` is the line at `position`, `lineStart` the absolute offset of its start.
    private(set) var line = 1
    private var lineStart = 0
    /// Absolute offset of `buffer[0]`.
    private var dropped = 0

    /// One value (a calendar's properties, one component) larger than this is an error, so a hostile
    /// document cannot make the reader hold more than this at once.
    let maxValueBytes: Int

    init(reader: ChunkReader, label: String, maxValueBytes: Int = 16 << 20) {
        self.maxValueBytes = maxValueBytes
        self.reader = reader
        self.label = label
    }

    private var column: Int { dropped + position - lineStart + 1 }

    /// A syntax or shape error in the document, with the file, line and column it was found at.
    func error(_ message: String, line: Int? = nil, column: Int? = nil) -> CalpipeError {
        CalpipeError(message, file: label, line: line ?? self.line, column: column ?? self.column)
    }

    /// Makes `buffer[position + offset]` available; false at the end of the input. May move bytes (never
    /// those at or after `position`).
    private func available(_ offset: Int) throws -> Bool {
        while position + offset >= buffer.count {
            if atEnd { return false }
            if position >= 1 << 20 {
                buffer.removeFirst(position)
                dropped += position
                position = 0
            }
            if try reader.read(into: &buffer) == 0 { atEnd = true }
        }
        return true
    }

    /// Moves `position` forward by `count` bytes, counting lines.
    private func advance(_ count: Int) {
        for i in position..<(position + count) where buffer[i] == 0x0A {
            line += 1
            lineStart = dropped + i + 1
        }
        position += count
    }

    func skipWhitespace() throws {
        if position == 0 && dropped == 0, try available(2), buffer[0] == 0xEF, buffer[1] == 0xBB, try available(2), buffer[2] == 0xBF {
            position = 3  // a UTF-8 byte order mark
        }
        while try available(0) {
            switch buffer[position] {
            case 0x20, 0x09, 0x0D, 0x0A: advance(1)
            default: return
            }
        }
    }

    /// The next byte after whitespace, nil at the end.
    func peek() throws -> UInt8? {
        try skipWhitespace()
        return try available(0) ? buffer[position] : nil
    }

    /// Consumes `byte` (after whitespace) or throws "expected <what>".
    func expect(_ byte: UInt8, _ what: String) throws {
        guard let b = try peek() else { throw error("unexpected end of input (expected \(what))") }
        guard b == byte else { throw error("expected \(what), found \(Self.describe(b))") }
        advance(1)
    }

    /// True when only whitespace is left.
    func atEndOfInput() throws -> Bool {
        try peek() == nil
    }

    /// Parses the next JSON value and returns it with the line it starts on.
    func nextValue() throws -> (value: JSONValue, line: Int) {
        guard let first = try peek() else { throw error("unexpected end of input (expected a value)") }
        let startLine = line, startColumn = column
        var offset = 0
        switch first {
        case UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "\""):
            var depth = 0
            var inString = false
            var escaped = false
            scan: while true {
                guard try available(offset) else { throw error("unexpected end of input inside a value that starts here", line: startLine, column: startColumn) }
                if offset >= maxValueBytes {
                    throw error("the value that starts here is larger than \(maxValueBytes >> 20) MB", line: startLine, column: startColumn)
                }
                let b = buffer[position + offset]
                offset += 1
                if inString {
                    if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") {
                        inString = false
                        if depth == 0 { break scan }
                    }
                    continue
                }
                switch b {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    depth -= 1
                    if depth == 0 { break scan }
                default: break
                }
            }
        default:
            while try available(offset) {
                let b = buffer[position + offset]
                if b == UInt8(ascii: ",") || b == UInt8(ascii: "]") || b == UInt8(ascii: "}") || b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { break }
                offset += 1
            }
        }
        let value: JSONValue
        do {
            value = try buffer[position..<(position + offset)].withUnsafeBufferPointer { bytes in
                var parser = JSONParser(bytes: bytes)
                return try parser.parseDocument()
            }
        } catch let e as JSONSyntaxError {
            throw error(e.message, line: startLine + e.line - 1, column: e.line == 1 ? startColumn + e.column - 1 : e.column)
        }
        advance(offset)
        return (value, startLine)
    }

    static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "\"\(String(decoding: [byte], as: UTF8.self))\"" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }
}
