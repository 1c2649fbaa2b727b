import CalSQLite
import CalXML
import XCTest

/// The two system libraries are linked and answer through their wrappers.
final class CLibraryTests: XCTestCase {
    func testSQLiteWrapperRunsStatementsAndReportsErrorsWithTheSQL() throws {
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t(x TEXT); INSERT INTO t VALUES ('calpipe');")
        XCTAssertEqual(try db.scalarText("SELECT x FROM t"), "calpipe")
        XCTAssertTrue(Database.libraryVersion.hasPrefix("3."))
        XCTAssertThrowsError(try db.execute("SELECT * FROM missing")) { error in
            XCTAssertEqual((error as? SQLiteError)?.description, "SQLite error 1: no such table: missing (in: SELECT * FROM missing)")
        }
    }

    func testLibXMLVersionIsKnown() {
        XCTAssertTrue(XMLLibrary.version.hasPrefix("2."), XMLLibrary.version)
    }
}
