/// A JSON syntax error with its line and column (1-based).
public struct JSONSyntaxError: Error, Equatable, CustomStringConvertible, Sendable {
    public let message: String
    public let line: Int
    public let column: Int

    public var description: String { "line \(line), column \(column): \(message)" }
}

extension JSONSyntaxError: CalpipeErrorConvertible {
    public var calpipeError: CalpipeError { CalpipeError(message, line: line, column: column, cause: self) }
}

/// A byte-level JSON parser (RFC 8259). It can parse a whole document, or step through the elements of a
/// top-level array or newline-delimited JSON one value at a time so a large feed is never held as one tree.
public struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    package private(set) var position: Int = 0
    private var depth = 0
    private var countedUpTo = 0
    private var countedLines = 1
    /// Nesting deeper than this is an error, not a stack overflow.
    public static let maximumDepth = 512

    /// The bytes must stay alive while the parser is used.
    public init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        // Skip a UTF-8 byte order mark.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
    }

    /// Parses a complete document from text.
    public static func parse(_ text: String) throws -> JSONValue {
        var copy = text
        return try copy.withUTF8 { buffer in
            var parser = JSONParser(bytes: buffer)
            return try parser.parseDocument()
        }
    }

    /// Parses a complete document from bytes.
    public static func parse(bytes: [UInt8]) throws -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(bytes: buffer)
            return try parser.parseDocument()
        }
    }

    /// One value followed by nothing but whitespace.
    public mutating func parseDocument() throws -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if position < bytes.count { throw error("unexpected text after the JSON value") }
        return value
    }

    // MARK: Streaming

    /// True when the next non-space byte opens an array (and consumes it).
    public mutating func beginTopLevelArray() throws -> Bool {
        skipWhitespace()
        guard position < bytes.count else { throw error("the document is empty") }
        if bytes[position] == UInt8(ascii: "[") {
            position += 1
            return true
        }
        return false
    }

    /// The next element of an array opened by `beginTopLevelArray`, or nil after its closing bracket.
    public mutating func nextArrayElement(isFirst: Bool) throws -> JSONValue? {
        skipWhitespace()
        guard position < bytes.count else { throw error("the array is not closed (expected \"]\")") }
        if bytes[position] == UInt8(ascii: "]") {
            position += 1
            skipWhitespace()
            if position < bytes.count { throw error("unexpected text after the JSON value") }
            return nil
        }
        if !isFirst {
            guard bytes[position] == UInt8(ascii: ",") else { throw error("expected \",\" or \"]\" in array") }
            position += 1
            skipWhitespace()
        }
        return try parseValue()
    }

    /// The next value of a newline-delimited stream, or nil at the end. Blank lines are skipped.
    public mutating func nextLineValue() throws -> JSONValue? {
        skipWhitespace()
        guard position < bytes.count else { return nil }
        let value = try parseValue()
        // Only spaces and tabs may follow on the same line.
        while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x09 || bytes[position] == 0x0D { position += 1 }
        if position < bytes.count, bytes[position] != 0x0A { throw error("expected a new line after the value") }
        return value
    }

    /// The 1-based line where the next value starts (after blank space), counted incrementally so walking
    /// a large newline-delimited file stays linear.
    public var currentLineOfNextValue: Int {
        mutating get {
            skipWhitespace()
            while countedUpTo < position {
                if bytes[countedUpTo] == 0x0A { countedLines += 1 }
                countedUpTo += 1
            }
            return countedLines
        }
    }

    /// Goes on after the line on which a bad value started at `start` (newline-delimited JSON: a line that ends inside
    /// a value loses that line only, not the lines the value ran into). False at the end of input.
    package mutating func skipLine(startingAt start: Int) -> Bool {
        position = start
        return skipToNextLine()
    }

    /// Skips past the next newline (after a bad line of newline-delimited JSON). False at the end of input.
    public mutating func skipToNextLine() -> Bool {
        depth = 0
        while position < bytes.count, bytes[position] != 0x0A { position += 1 }
        guard position < bytes.count else { return false }
        position += 1
        return true
    }

    // MARK: Values

    private mutating func parseValue() throws -> JSONValue {
        guard position < bytes.count else { throw error("unexpected end of input (expected a value)") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character \(describe(bytes[position])) (expected a value)")
        }
    }

    private mutating func parseObject() throws -> JSONValue {
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maximumDepth { throw error("nesting deeper than \(Self.maximumDepth) levels") }
        position += 1
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(JSONObject(members))
        }
        while true {
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input (expected a key)") }
            guard bytes[position] == UInt8(ascii: "\"") else { throw error("expected a string key, found \(describe(bytes[position]))") }
            let key = try parseString()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected \":\" after key \"\(key)\"") }
            position += 1
            skipWhitespace()
            let value = try parseValue()
            members.append((key, value))
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input (expected \",\" or \"}\")") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "}") { position += 1; break }
            throw error("expected \",\" or \"}\" in object, found \(describe(bytes[position]))")
        }
        return .object(JSONObject(members))
    }

    private mutating func parseArray() throws -> JSONValue {
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maximumDepth { throw error("nesting deeper than \(Self.maximumDepth) levels") }
        position += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input (expected \",\" or \"]\")") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "]") { position += 1; break }
            throw error("expected \",\" or \"]\" in array, found \(describe(bytes[position]))")
        }
        return .array(items)
    }

    private mutating func parseString() throws -> String {
        position += 1  // opening quote
        let start = position
        // Fast path: no escapes.
        while position < bytes.count {
            let c = bytes[position]
            if c == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                position += 1
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { throw error("control character in string (escape it)") }
            position += 1
        }
        var out = Array(bytes[start..<position])
        while position < bytes.count {
            let c = bytes[position]
            if c == UInt8(ascii: "\"") {
                position += 1
                return String(decoding: out, as: UTF8.self)
            }
            if c < 0x20 { throw error("control character in string (escape it)") }
            if c != UInt8(ascii: "\\") {
                out.append(c)
                position += 1
                continue
            }
            position += 1
            guard position < bytes.count else { break }
            let e = bytes[position]
            position += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try parseHex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired surrogate in \\u escape")
                    }
                    position += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("unpaired surrogate in \\u escape")
                }
                guard let u = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default:
                position -= 2
                throw error("invalid escape \\\(String(decoding: [e], as: UTF8.self)) in string")
            }
        }
        throw error("unterminated string")
    }

    private mutating func parseHex4() throws -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("incomplete \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[position]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            v = v << 4 | d
            position += 1
        }
        return v
    }

    private mutating func parseNumber() throws -> Double {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        func digits() -> Int {
            let s = position
            while position < bytes.count, bytes[position] >= 48, bytes[position] <= 57 { position += 1 }
            return position - s
        }
        let intDigits = digits()
        guard intDigits > 0 else { throw error(at: start, "invalid number") }
        if intDigits > 1, bytes[start + (bytes[start] == UInt8(ascii: "-") ? 1 : 0)] == UInt8(ascii: "0") {
            throw error(at: start, "invalid number (leading zero)")
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw error(at: start, "invalid number (digits expected after \".\")") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw error(at: start, "invalid number (digits expected in exponent)") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text) else { throw error(at: start, "invalid number") }
        return value
    }

    private mutating func expectLiteral(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        let lit = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        guard position + count <= bytes.count, zip(lit, bytes[position..<(position + count)]).allSatisfy({ $0 == $1 }) else {
            throw error("invalid literal (expected \(literal))")
        }
        position += count
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "\"\(String(decoding: [byte], as: UTF8.self))\"" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    private func lineAndColumn(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        var i = 0
        let end = min(offset, bytes.count)
        while i < end {
            if bytes[i] == 0x0A { line += 1; lineStart = i + 1 }
            i += 1
        }
        // Columns count characters, not bytes.
        var column = 1
        var j = lineStart
        while j < end {
            if bytes[j] & 0xC0 != 0x80 { column += 1 }
            j += 1
        }
        return (line, column)
    }

    private func error(_ message: String) -> JSONSyntaxError {
        error(at: position, message)
    }

    private func error(at offset: Int, _ message: String) -> JSONSyntaxError {
        let (line, column) = lineAndColumn(of: offset)
        return JSONSyntaxError(message: message, line: line, column: column)
    }
}
