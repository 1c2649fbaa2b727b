import CalpipeKit
import Foundation

/// Rows of a SQLite database the `sqlite` sink wrote, read by Python's sqlite3 module (these tests import only
/// CalpipeKit, which does not offer a SQLite reader): each row's values as text, joined by " | "
/// (a statement that changes rows is committed).
enum SQLiteRows {
    static func query(_ database: String, _ sql: String) throws -> [String] {
        try CalendarAPIServer.requirePython()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            for row in db.execute(sys.argv[2]):
                print(" | ".join("" if v is None else str(v) for v in row))
            db.commit()
            """, database, sql]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CalpipeError("\(database): cannot run \(sql)") }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
