import Pipeline

/// One unfolded iCalendar content line split into name, parameters and value (RFC 5545 3.1), with its line.
///
/// The name and parameter names are upper-cased; parameter values have their quotes removed and RFC 6868
/// escapes (`^n`, `^'`, `^^`) decoded; the value is kept exactly as written (text escapes are not decoded here).
public struct ICSContentLine: Sendable, Hashable {
    public var name: String
    public var parameters: [Parameter]
    public var value: String
    /// The physical line the content line started on.
    public var line: Int

    public init(name: String, parameters: [Parameter] = [], value: String, line: Int) {
        self.name = name
        self.parameters = parameters
        self.value = value
        self.line = line
    }

    /// The first value of a parameter (names compare upper-cased).
    public func parameter(_ name: String) -> String? {
        parameters.first { $0.name == name }?.values.first
    }

    public var rawProperty: RawProperty { RawProperty(name: name, parameters: parameters, value: value) }

    /// Why a line could not be split.
    enum SyntaxError: Error {
        case noColon, emptyName, badParameter, unterminatedQuote
        var reason: String {
            switch self {
            case .noColon: return "malformed line (no \":\" after the property name)"
            case .emptyName: return "malformed line (empty property name)"
            case .badParameter: return "malformed parameter (expected NAME=value)"
            case .unterminatedQuote: return "malformed parameter (unterminated quoted value)"
            }
        }
    }

    /// Splits one unfolded line. `decodeValue` turns the value bytes into a String (UTF-8, or Latin-1 fallback).
    static func parse(_ b: UnsafeBufferPointer<UInt8>, line: Int, decodeValue: (UnsafeBufferPointer<UInt8>) -> String) throws(SyntaxError) -> ICSContentLine {
        let n = b.count
        var i = 0
        while i < n, b[i] != 0x3B, b[i] != 0x3A { i += 1 }  // ';' ':'
        guard i < n else { throw .noColon }
        guard i > 0 else { throw .emptyName }
        let name = upperASCII(b, 0, i)
        var parameters: [Parameter] = []
        while i < n, b[i] == 0x3B {
            i += 1
            let nameStart = i
            while i < n, b[i] != 0x3D, b[i] != 0x3A, b[i] != 0x3B { i += 1 }  // '='
            guard i < n, b[i] == 0x3D, i > nameStart else {
                if i >= n { throw .noColon }
                throw .badParameter
            }
            let paramName = upperASCII(b, nameStart, i)
            i += 1
            var values: [String] = []
            while true {
                if i < n, b[i] == 0x22 {  // quoted
                    i += 1
                    let start = i
                    while i < n, b[i] != 0x22 { i += 1 }
                    guard i < n else { throw .unterminatedQuote }
                    values.append(paramText(b, start, i))
                    i += 1
                } else {
                    let start = i
                    while i < n, b[i] != 0x2C, b[i] != 0x3B, b[i] != 0x3A { i += 1 }
                    values.append(paramText(b, start, i))
                }
                if i < n, b[i] == 0x2C { i += 1; continue }  // ','
                break
            }
            parameters.append(Parameter(name: paramName, values: values))
        }
        guard i < n, b[i] == 0x3A else { throw .noColon }
        let value = decodeValue(UnsafeBufferPointer(rebasing: b[(i + 1)...]))
        return ICSContentLine(name: name, parameters: parameters, value: value, line: line)
    }

    private static func upperASCII(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> String {
        String(unsafeUninitializedCapacity: to - from) { out in
            for k in from..<to {
                let c = b[k]
                out[k - from] = (c >= 0x61 && c <= 0x7A) ? c - 32 : c
            }
            return to - from
        }
    }

    /// A parameter value with RFC 6868 escapes decoded: ^n newline, ^' double quote, ^^ caret.
    private static func paramText(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> String {
        var hasCaret = false
        for k in from..<to where b[k] == 0x5E { hasCaret = true; break }
        let slice = UnsafeBufferPointer(rebasing: b[from..<to])
        if !hasCaret { return String(decoding: slice, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(to - from)
        var k = from
        while k < to {
            let c = b[k]
            if c == 0x5E, k + 1 < to {
                switch b[k + 1] {
                case 0x6E, 0x4E: out.append(0x0A); k += 2; continue  // ^n
                case 0x27: out.append(0x22); k += 2; continue  // ^'
                case 0x5E: out.append(0x5E); k += 2; continue  // ^^
                default: break
                }
            }
            out.append(c)
            k += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
