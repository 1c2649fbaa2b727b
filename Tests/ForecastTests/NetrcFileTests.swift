import Fetch
import XCTest

final class NetrcFileTests: XCTestCase {
    func testMachinesDefaultAndMacros() {
        let file = NetrcFile(text: """
            # comment
            machine cal.example.com login ada password p1
            machine OTHER.example.com
              login bob
              password "p2"
            macdef init
            cd /pub
            login nobody

            default login anon password guest
            """)
        XCTAssertEqual(file.entry(for: "cal.example.com"), NetrcFile.Entry(login: "ada", password: "p1"))
        XCTAssertEqual(file.entry(for: "Other.Example.com")?.login, "bob")
        XCTAssertEqual(file.entry(for: "unknown.example.com"), NetrcFile.Entry(login: "anon", password: "guest"))
    }

    func testLoadHonoursNETRCThenHome() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-netrc-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "machine h login home password a".write(to: dir.appendingPathComponent(".netrc"), atomically: true, encoding: .utf8)
        try "machine h login explicit password b".write(to: dir.appendingPathComponent("other"), atomically: true, encoding: .utf8)
        XCTAssertEqual(NetrcFile.load(environment: ["HOME": dir.path])?.entry(for: "h")?.login, "home")
        XCTAssertEqual(NetrcFile.load(environment: ["HOME": dir.path, "NETRC": dir.appendingPathComponent("other").path])?.entry(for: "h")?.login, "explicit")
        XCTAssertNil(NetrcFile.load(environment: ["HOME": dir.appendingPathComponent("nowhere").path]))
    }
}
