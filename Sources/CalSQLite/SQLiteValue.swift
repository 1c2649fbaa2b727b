/// One SQLite value, as bound to a parameter or read from a column.
package enum SQLiteValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    package var isNull: Bool { self == .null }

    package var int64: Int64? {
        switch self {
        case .integer(let i): return i
        case .real(let d): return Int64(exactly: d)
        default: return nil
        }
    }

    package var double: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .real(let d): return d
        default: return nil
        }
    }

    package var text: String? {
        if case .text(let s) = self { return s }
        return nil
    }
}

extension SQLiteValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByNilLiteral, ExpressibleByBooleanLiteral {
    package init(integerLiteral value: Int64) { self = .integer(value) }
    package init(floatLiteral value: Double) { self = .real(value) }
    package init(stringLiteral value: String) { self = .text(value) }
    package init(nilLiteral: ()) { self = .null }
    package init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}

extension SQLiteValue: CustomStringConvertible {
    /// SQL-literal-like text, for messages and test output: NULL, 42, 1.5, 'text', x'0a0b'.
    package var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let i): return String(i)
        case .real(let d): return String(d)
        case .text(let s): return Database.quote(s, with: "'")
        case .blob(let b):
            let hex: [Character] = Array("0123456789abcdef")
            var out = "x'"
            for byte in b { out.append(hex[Int(byte >> 4)]); out.append(hex[Int(byte & 15)]) }
            return out + "'"
        }
    }
}

/// A Swift type that can be bound to a statement parameter.
package protocol SQLiteBindable {
    var sqliteValue: SQLiteValue { get }
}

extension SQLiteValue: SQLiteBindable { package var sqliteValue: SQLiteValue { self } }
extension Int: SQLiteBindable { package var sqliteValue: SQLiteValue { .integer(Int64(self)) } }
extension Int64: SQLiteBindable { package var sqliteValue: SQLiteValue { .integer(self) } }
extension Int32: SQLiteBindable { package var sqliteValue: SQLiteValue { .integer(Int64(self)) } }
extension Bool: SQLiteBindable { package var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) } }
extension Double: SQLiteBindable { package var sqliteValue: SQLiteValue { .real(self) } }
extension String: SQLiteBindable { package var sqliteValue: SQLiteValue { .text(self) } }
extension Substring: SQLiteBindable { package var sqliteValue: SQLiteValue { .text(String(self)) } }
extension Array: SQLiteBindable where Element == UInt8 { package var sqliteValue: SQLiteValue { .blob(self) } }
extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    package var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
}
