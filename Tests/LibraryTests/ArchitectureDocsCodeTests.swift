import CalpipeKit
import Foundation
import XCTest

/// The plugins docs/architecture.md shows are the ones these tests compile and run: each code block the page
/// marks with `<!-- code: FILE REGION -->` is the text between `// docs:begin REGION` and `// docs:end REGION`
/// of that file.
final class ArchitectureDocsCodeTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every marked block, in page order: (file, region, the block's text).
    private func markedBlocks() throws -> [(file: String, region: String, code: String)] {
        let page = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        var lines = page.split(separator: "\n", omittingEmptySubsequences: false)[...]
        var out: [(String, String, String)] = []
        while let line = lines.popFirst() {
            guard line.hasPrefix("<!-- code: "), line.hasSuffix(" -->") else { continue }
            let words = line.dropFirst("<!-- code: ".count).dropLast(" -->".count).split(separator: " ")
            XCTAssertEqual(words.count, 2, "\(line)")
            XCTAssertEqual(lines.popFirst(), "```swift", "the line after \(line)")
            var code: [Substring] = []
            while let next = lines.popFirst(), next != "```" { code.append(next) }
            out.append((String(words[0]), String(words.last ?? ""), code.joined(separator: "\n")))
        }
        return out
    }

    private func region(_ name: String, of file: String) throws -> String {
        let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let begin = lines.firstIndex(of: "// docs:begin \(name)"), let end = lines.firstIndex(of: "// docs:end \(name)"), begin < end else {
            throw CalpipeError("\(file): no region \(name)")
        }
        return lines[(begin + 1)..<end].joined(separator: "\n")
    }

    func testThePagesCodeIsTheTestedCode() throws {
        let blocks = try markedBlocks()
        XCTAssertEqual(blocks.map(\.region), ["events-api", "events-store"])
        for block in blocks {
            XCTAssertEqual(block.code, try region(block.region, of: block.file), "docs/architecture.md's block of \(block.file) \(block.region)")
        }
    }
}
