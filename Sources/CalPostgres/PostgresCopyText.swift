#if Postgres
import CalSQLite
import Exporters
import PostgresNIO

/// Rows in COPY's text format (tab between columns, newline after a row, `\N` for NULL, backslash escapes), built
/// in one reused buffer. A `RowBinder`, so `SQLiteRowEncoding` writes the postgres sink's values exactly as it
/// binds the sqlite sink's: the two databases hold the same text, numbers and JSON.
final class PostgresCopyText: RowBinder {
    private(set) var buffer = ByteBufferAllocator().buffer(capacity: 1 << 16)
    private var atRowStart = true
    private(set) var rows = 0

    var isEmpty: Bool { rows == 0 }

    /// Hands the rows over and starts again with an empty buffer of the same capacity.
    func take() -> ByteBuffer {
        let out = buffer
        buffer = ByteBufferAllocator().buffer(capacity: max(1 << 16, out.readableBytes))
        rows = 0
        atRowStart = true
        return out
    }

    func endRow() {
        buffer.writeInteger(UInt8(ascii: "\n"))
        atRowStart = true
        rows += 1
    }

    private func separate() {
        if !atRowStart { buffer.writeInteger(UInt8(ascii: "\t")) }
        atRowStart = false
    }

    /// Appends raw UTF-8 bytes of a value, escaped for COPY text.
    private func writeEscaped(_ bytes: UnsafeRawBufferPointer) {
        var plain = true
        for b in bytes where b == 0x5C || b == 0x09 || b == 0x0A || b == 0x0D { plain = false; break }
        if plain {
            buffer.writeBytes(bytes)
            return
        }
        for b in bytes {
            switch b {
            case 0x5C: buffer.writeStaticString("\\\\")
            case 0x09: buffer.writeStaticString("\\t")
            case 0x0A: buffer.writeStaticString("\\n")
            case 0x0D: buffer.writeStaticString("\\r")
            default: buffer.writeInteger(b)
            }
        }
    }

    func bindNull(at index: Int) throws {
        separate()
        buffer.writeStaticString("\\N")
    }

    func bind(_ value: Int64, at index: Int) throws {
        separate()
        buffer.writeString(String(value))
    }

    func bind(_ value: Int, at index: Int) throws { try bind(Int64(value), at: index) }

    func bind(_ value: Bool, at index: Int) throws { try bind(Int64(value ? 1 : 0), at: index) }

    func bind(_ value: String?, at index: Int) throws {
        guard var value else { return try bindNull(at: index) }
        separate()
        value.withUTF8 { writeEscaped(UnsafeRawBufferPointer($0)) }
    }

    func bind(_ value: Double?, at index: Int) throws {
        guard let value else { return try bindNull(at: index) }
        separate()
        // Swift's shortest round-trip text: PostgreSQL reads it back to the same double.
        buffer.writeString(value.description)
    }

    func bind(_ value: SQLiteValue, at index: Int) throws {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let n): try bind(n, at: index)
        case .real(let d): try bind(d, at: index)
        case .text(let t): try bind(t, at: index)
        case .blob(let bytes):
            separate()
            // bytea's hex form (no column of the agenda tables holds one).
            buffer.writeStaticString("\\\\x")
            for b in bytes { buffer.writeString(String(b, radix: 16).count == 1 ? "0" + String(b, radix: 16) : String(b, radix: 16)) }
        }
    }

    func bindText(at index: Int, capacity: Int, _ write: (UnsafeMutableRawBufferPointer) -> Int) throws {
        separate()
        // Written into scratch space, then escaped into the buffer.
        let count = withUnsafeTemporaryAllocation(byteCount: max(capacity, 1), alignment: 1) { scratch in
            let n = write(scratch)
            writeEscaped(UnsafeRawBufferPointer(rebasing: scratch[..<n]))
            return n
        }
        _ = count
    }
}
#endif
