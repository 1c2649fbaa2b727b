import Foundation
import Pipeline
import XCTest

/// The demo page as headless Chromium (Debian's `chromium`, installed by .ci/run) draws it: phone and desktop
/// widths, light and dark (`--blink-settings=preferredColorScheme=0` makes `prefers-color-scheme: dark` match
/// in headless mode; `--force-dark-mode` does the same). With CALPIPE_SCREENSHOTS_DIR set, the screenshots are
/// also copied there (that is how docs/screenshots/*.png are made, see docs/screenshots/README.md).
final class HTMLChromiumTests: XCTestCase {
    struct Shot {
        var name: String
        var width: Int
        var height: Int
        var dark: Bool
    }

    static let shots = [
        Shot(name: "agenda-desktop-light", width: 1280, height: 900, dark: false),
        Shot(name: "agenda-desktop-dark", width: 1280, height: 900, dark: true),
        Shot(name: "agenda-phone-light", width: 390, height: 844, dark: false),
        Shot(name: "agenda-phone-dark", width: 390, height: 844, dark: true),
    ]

    func testScreenshotsAtPhoneAndDesktopWidthsLightAndDarkAreNotBlank() throws {
        _ = try HTMLTestSupport.requireTool("chromium")
        let folder = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rendered = try HTMLTestSupport.renderDemo(into: folder)
        let copyTo = ProcessInfo.processInfo.environment["CALPIPE_SCREENSHOTS_DIR"].map { URL(fileURLWithPath: $0) }
        for shot in Self.shots {
            let png = folder.appendingPathComponent(shot.name + ".png")
            var arguments = ["--window-size=\(shot.width),\(shot.height)", "--screenshot=" + png.path]
            if shot.dark { arguments.append("--blink-settings=preferredColorScheme=0") }
            let result = try HTMLTestSupport.chromium(arguments + [rendered.page.absoluteString], profile: folder)
            XCTAssertEqual(result.status, 0, "\(shot.name): \(result.stderr.suffix(2000))")
            let stats = try HTMLTestSupport.pngStats(png)
            XCTAssertEqual(stats["width"], Double(shot.width), shot.name)
            XCTAssertEqual(stats["height"], Double(shot.height), shot.name)
            // Not blank: many colours (text, icons, event colours) and most of the picture not the page's background.
            XCTAssertGreaterThan(stats["colours"] ?? 0, 100, "\(shot.name): \(stats)")
            XCTAssertGreaterThan(stats["non_background"] ?? 0, 0.3, "\(shot.name): \(stats)")
            // Dark mode took effect (and light stayed light).
            if shot.dark {
                XCTAssertLessThan(stats["mean_luminance"] ?? 255, 80, "\(shot.name): \(stats)")
            } else {
                XCTAssertGreaterThan(stats["mean_luminance"] ?? 0, 180, "\(shot.name): \(stats)")
            }
            if let copyTo {
                try? FileManager.default.createDirectory(at: copyTo, withIntermediateDirectories: true)
                let target = copyTo.appendingPathComponent(shot.name + ".png")
                try? FileManager.default.removeItem(at: target)
                try FileManager.default.copyItem(at: png, to: target)
            }
        }
    }

    /// The page's height grows with the number of days (a layout that broke, e.g. sections drawn on top of
    /// each other or hidden, would not): the height is read by a script added to a copy of the page, which
    /// writes `document.documentElement.scrollHeight` into the DOM that `--dump-dom` prints.
    func testPageHeightGrowsWithTheNumberOfDays() throws {
        _ = try HTMLTestSupport.requireTool("chromium")
        let folder = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        func height(days: Int) throws -> Int {
            let sub = folder.appendingPathComponent("d\(days)")
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            let from = CivilDate(year: 2026, month: 10, day: 19)
            let rendered = try HTMLTestSupport.renderDemo(into: sub, window: (from.iso8601, from.adding(days: days).iso8601))
            let probe = sub.appendingPathComponent("probe.html")
            let script = "<script>document.body.setAttribute('data-height', String(document.documentElement.scrollHeight))</script></body>"
            try rendered.html.replacingOccurrences(of: "</body>", with: script).write(to: probe, atomically: true, encoding: .utf8)
            let result = try HTMLTestSupport.chromium(["--window-size=390,844", "--dump-dom", probe.absoluteString], profile: sub)
            XCTAssertEqual(result.status, 0, result.stderr)
            let dom = result.text
            guard let range = dom.range(of: "data-height=\""),
                  let end = dom[range.upperBound...].firstIndex(of: "\""),
                  let value = Int(dom[range.upperBound..<end]) else {
                XCTFail("no data-height in the dumped DOM: \(dom.prefix(300))")
                return 0
            }
            return value
        }
        let week = try height(days: 7)
        let month = try height(days: 28)
        print("page height at 390 px: 7 days \(week) px, 28 days \(month) px")
        XCTAssertGreaterThan(week, 844, "a week of agenda is longer than a phone's screen")
        // 21 more days, each at least a header and a line (about 100 px at 390 px).
        XCTAssertGreaterThan(month, week + 21 * 90)
    }

    /// Printed (the print stylesheet: agenda only, no sticky headers), a month of days takes more pages than a
    /// week: the page count is the largest `/Count` of the PDF's page tree.
    func testPrintedPagesGrowWithTheNumberOfDays() throws {
        _ = try HTMLTestSupport.requireTool("chromium")
        let folder = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        func pages(days: Int) throws -> Int {
            let sub = folder.appendingPathComponent("p\(days)")
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            let from = CivilDate(year: 2026, month: 10, day: 19)
            let rendered = try HTMLTestSupport.renderDemo(into: sub, window: (from.iso8601, from.adding(days: days).iso8601))
            let pdf = sub.appendingPathComponent("agenda.pdf")
            let result = try HTMLTestSupport.chromium(["--no-pdf-header-footer", "--print-to-pdf=" + pdf.path, rendered.page.absoluteString], profile: sub)
            XCTAssertEqual(result.status, 0, result.stderr)
            let text = String(decoding: try Data(contentsOf: pdf), as: UTF8.self)
            let counts = text.matches(of: /\/Count (\d+)/).compactMap { Int($0.output.1) }
            return counts.max() ?? 0
        }
        let week = try pages(days: 7)
        let month = try pages(days: 28)
        print("printed pages: 7 days \(week), 28 days \(month)")
        XCTAssertGreaterThanOrEqual(week, 2)
        XCTAssertGreaterThan(month, week * 2)
    }
}
