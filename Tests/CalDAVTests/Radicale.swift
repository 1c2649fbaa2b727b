import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A real Radicale server on 127.0.0.1 (Tests/Fixtures/caldav/radicale_server.py), with one user, its calendars
/// in a temporary folder, filled through its own HTTP interface (MKCALENDAR, PUT, DELETE). Skips the test when
/// Radicale is not installed, unless CALPIPE_REQUIRE_TOOLS=1 (scripts/test installs it).
final class Radicale {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/caldav/radicale_server.py")

    let port: Int
    let user: String
    let password: String
    private let process: Process
    private let input: Pipe

    var base: String { "http://127.0.0.1:\(port)" }
    /// The user's calendar home.
    var home: String { "\(base)/\(user)/" }

    init(folder: URL, user: String = "alice", password: String = "s3cret pass") throws {
        self.user = user
        self.password = password
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script.path, folder.path, user, password]
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        if text.hasPrefix("MISSING") {
            process.waitUntilExit()
            let message = "Radicale is not installed (scripts/test installs it into .build/test-venv): \(text.dropFirst(8))"
            if ProcessInfo.processInfo.environment["CALPIPE_REQUIRE_TOOLS"] == "1" { XCTFail(message) }
            throw XCTSkip(message)
        }
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            process.terminate()
            throw NSError(domain: "Radicale", code: 1, userInfo: [NSLocalizedDescriptionKey: "Radicale did not start: \(text)"])
        }
        self.port = port
    }

    func stop() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { stop() }

    // MARK: - Filling it through its HTTP interface

    /// Makes a calendar collection `name` (a path segment) in the user's home, with a display name and colour.
    func makeCalendar(_ name: String, displayName: String, color: String? = nil, components: [String] = ["VEVENT"]) throws {
        let colour = color.map { "<a:calendar-color>\($0)</a:calendar-color>" } ?? ""
        let comps = components.map { "<c:comp name=\"\($0)\"/>" }.joined()
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:a="http://apple.com/ns/ical/"><d:set><d:prop>\
            <d:displayname>\(displayName)</d:displayname>\(colour)<c:supported-calendar-component-set>\(comps)</c:supported-calendar-component-set>\
            </d:prop></d:set></c:mkcalendar>
            """
        let status = try send("MKCALENDAR", home + name + "/", body: body).status
        XCTAssertEqual(status, 201, "MKCALENDAR \(name)")
    }

    /// PUTs one resource (VCALENDAR text) into a calendar; returns the status.
    @discardableResult
    func put(_ calendar: String, _ resource: String, _ ics: String) throws -> Int {
        let status = try send("PUT", home + calendar + "/" + resource, body: ics, contentType: "text/calendar").status
        XCTAssertTrue((200..<300).contains(status), "PUT \(resource): \(status)")
        return status
    }

    @discardableResult
    func delete(_ calendar: String, _ resource: String) throws -> Int {
        try send("DELETE", home + calendar + "/" + resource, body: nil).status
    }

    /// GETs a resource's text.
    func get(_ path: String) throws -> (status: Int, body: String) {
        try send("GET", base + path, body: nil)
    }

    private final class Box: @unchecked Sendable {
        var status = 0
        var data = Data()
        var error: Error?
    }

    func send(_ method: String, _ url: String, body: String?, contentType: String = "application/xml") throws -> (status: Int, body: String) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        request.setValue("Basic " + Data("\(user):\(password)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, error in
            box.status = (response as? HTTPURLResponse)?.statusCode ?? 0
            box.data = data ?? Data()
            box.error = error
            done.signal()
        }.resume()
        guard done.wait(timeout: .now() + 30) == .success else { throw NSError(domain: "Radicale", code: 2) }
        if let error = box.error { throw error }
        return (box.status, String(decoding: box.data, as: UTF8.self))
    }

    /// A weekly series of four (Mondays from 2026-12-07, 10:00 Berlin) and its override: the second one moved.
    static let weekly = """
        UID:weekly@test
        DTSTAMP:20261101T000000Z
        DTSTART;TZID=Europe/Berlin:20261207T100000
        DTEND;TZID=Europe/Berlin:20261207T110000
        RRULE:FREQ=WEEKLY;COUNT=4
        SUMMARY:Planning
        """
    static let weeklyOverride = """
        UID:weekly@test
        DTSTAMP:20261101T000000Z
        RECURRENCE-ID;TZID=Europe/Berlin:20261214T100000
        DTSTART;TZID=Europe/Berlin:20261215T140000
        DTEND;TZID=Europe/Berlin:20261215T150000
        SUMMARY:Planning (moved)
        """

    /// A VCALENDAR holding these VEVENT bodies (each without BEGIN/END).
    static func calendar(_ events: String...) -> String {
        calendar(events)
    }

    static func calendar(_ events: [String]) -> String {
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//calpipe tests//EN\r\n"
        for event in events {
            text += "BEGIN:VEVENT\r\n"
            for line in event.split(separator: "\n") { text += line.trimmingCharacters(in: .whitespaces) + "\r\n" }
            text += "END:VEVENT\r\n"
        }
        return text + "END:VCALENDAR\r\n"
    }
}
