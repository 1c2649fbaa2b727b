import CalXML
import Foundation
import XCTest

/// Hostile documents: each must end quickly with a clear error, read no file and open no connection.
final class HostileXMLTests: XCTestCase {
    /// Reads a whole document through the streaming reader, expanding every element at depth 1.
    private func consume(_ input: XMLInput, label: String = "hostile.xml") throws {
        let reader = try XMLStreamReader(input: input, label: label)
        while try reader.read() {
            if reader.kind == .element, reader.depth == 1 {
                _ = try reader.expand()
                try reader.skipSubtree()
                if reader.kind == .element, reader.depth == 1 { _ = try reader.expand() }
            }
        }
    }

    private func expectError(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> XMLError? {
        do {
            try consume(XMLBytesInput(text))
            XCTFail("expected an error", file: file, line: line)
            return nil
        } catch let error as XMLError {
            return error
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
            return nil
        }
    }

    /// libxml2 reports through our handler only: nothing reaches the process's standard error.
    func testLibxmlPrintsNothing() throws {
        let path = NSTemporaryDirectory() + "calpipe-stderr-\(getpid()).txt"
        let file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(file, 0)
        defer { unlink(path) }
        let saved = dup(2)
        dup2(file, 2)
        var errors: [String] = []
        for doc in ["<a><b></a>", "<?xml version=\"1.0\" encoding=\"x-nope\"?><a/>", "<a>&undefined;</a>", "<a xmlns:p=\"u\"><q:b/></a>",
                    String(repeating: "<a>", count: 300), "<a>\u{0}</a>", "<!DOCTYPE a SYSTEM \"http://127.0.0.1:9/x.dtd\"><a>&e;</a>"] {
            do { try consume(XMLBytesInput(doc)) } catch { errors.append("\(error)") }
        }
        _ = try? XPathExpression("a[")
        _ = try? XMLSubtree.parse("<a/>", label: "x").evaluate(XPathExpression("p:b"))
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        close(file)
        XCTAssertEqual(errors.count, 7)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "")
    }

    func testBillionLaughsIsRefused() throws {
        var doc = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n<!ENTITY lol \"lol\">\n"
        doc += "<!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
        for i in 2...9 {
            doc += "<!ENTITY lol\(i) \"" + String(repeating: "&lol\(i - 1);", count: 10) + "\">\n"
        }
        doc += "]>\n<lolz><a>&lol9;</a></lolz>\n"
        let started = Date()
        let error = expectError(doc)
        // Expanding the entities would mean 10^9 copies: minutes and gigabytes. Refusing takes milliseconds;
        // the bound is loose so a loaded machine does not fail it.
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertEqual(error?.file, "hostile.xml")
        XCTAssertEqual(error?.line, 14)
        XCTAssertEqual(error?.message, "Detected an entity reference loop")
    }

    /// An external entity pointing at a FIFO: if libxml2 ever opened it, a watcher thread would see a reader.
    func testExternalEntityReadsNoFile() throws {
        let fifo = NSTemporaryDirectory() + "calpipe-xxe-\(getpid()).fifo"
        unlink(fifo)
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        defer { unlink(fifo) }
        let watcher = FIFOWatcher(path: fifo)
        watcher.start()
        let doc = """
        <?xml version="1.0"?>
        <!DOCTYPE r [<!ENTITY xxe SYSTEM "file://\(fifo)"><!ENTITY pw SYSTEM "file:///etc/passwd">]>
        <r><a>&pw;</a><b>&xxe;</b></r>
        """
        let error = expectError(doc)
        watcher.stop()
        XCTAssertFalse(watcher.opened, "libxml2 opened the external entity")
        XCTAssertEqual(error?.description, "hostile.xml:3: the entity reference &pw; is not allowed: calpipe never expands entities")
    }

    /// External DTDs over http (to a local listener that records connections) and over file (a FIFO).
    func testExternalDTDOpensNoConnectionAndNoFile() throws {
        let listener = try LocalListener()
        let fifo = NSTemporaryDirectory() + "calpipe-dtd-\(getpid()).fifo"
        unlink(fifo)
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        defer { unlink(fifo) }
        let watcher = FIFOWatcher(path: fifo)
        watcher.start()
        for system in ["http://127.0.0.1:\(listener.port)/evil.dtd", "file://\(fifo)"] {
            let doc = """
            <?xml version="1.0"?>
            <!DOCTYPE r SYSTEM "\(system)">
            <r><a x="1">plain</a></r>
            """
            // Without DTD loading the document is fine: nothing of the DTD is used.
            try consume(XMLBytesInput(doc))
            let withEntity = """
            <?xml version="1.0"?>
            <!DOCTYPE r SYSTEM "\(system)">
            <r><a>&fromdtd;</a></r>
            """
            let error = expectError(withEntity)
            XCTAssertEqual(error?.line, 3)
            XCTAssertEqual(error?.message, "Entity 'fromdtd' not defined")
        }
        watcher.stop()
        XCTAssertEqual(listener.connections(), 0, "libxml2 connected to the DTD's server")
        XCTAssertFalse(watcher.opened, "libxml2 opened the DTD file")
    }

    /// libxml2 keeps entity references in attribute values as nodes and would expand them when asked for
    /// the value: they are refused there too; predefined entities and character references are fine.
    func testEntityInAttributeIsRefused() throws {
        let doc = "<?xml version=\"1.0\"?>\n<!DOCTYPE r [<!ENTITY e \"hello\">]>\n<r><a y=\"&amp;&#65;\" x=\"say &e;\">t</a></r>\n"
        let reader = try XMLStreamReader(input: XMLBytesInput(doc), label: "attr.xml")
        XCTAssertTrue(try reader.nextElement())
        XCTAssertTrue(try reader.nextElement())
        XCTAssertEqual(try reader.attribute("y"), "&A")
        XCTAssertThrowsError(try reader.attribute("x")) { error in
            XCTAssertEqual("\(error)", "attr.xml:3: the entity reference &e; in attribute x is not allowed: calpipe never expands entities")
        }
        XCTAssertThrowsError(try reader.expand())
        XCTAssertThrowsError(try reader.copySubtree())
    }

    func testHundredMegabyteTextNodeStopsAtLibxmlLimit() throws {
        // Generated on the fly: "<r><a>" + 100 MB of "x" + "</a></r>", never held in memory.
        let total = 100 << 20
        var produced = 0
        var stage = 0
        var head = Array("<r><a>".utf8)[...]
        let input = XMLGeneratedInput { buffer in
            switch stage {
            case 0:
                let n = min(buffer.count, head.count)
                buffer.copyBytes(from: head.prefix(n))
                head = head.dropFirst(n)
                if head.isEmpty { stage = 1 }
                return n
            case 1:
                let n = min(buffer.count, total - produced)
                if n == 0 { stage = 2; return 0 }
                buffer.baseAddress!.initializeMemory(as: UInt8.self, repeating: UInt8(ascii: "x"), count: n)
                produced += n
                return n
            default:
                return 0
            }
        }
        let before = peakResidentBytes()
        let started = Date()
        do {
            try consume(input)
            XCTFail("expected an error")
        } catch let error as XMLError {
            XCTAssertEqual(error.message, "xmlSAX2Characters: huge text node")
            XCTAssertEqual(error.line, 1)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertLessThan(produced, 20 << 20, "the parser should stop near its 10 MB text limit")
        XCTAssertLessThan(peakResidentBytes() - before, 80 << 20)
    }

    func testTenThousandDeepNestingIsRefused() throws {
        let doc = String(repeating: "<a>", count: 10_000) + String(repeating: "</a>", count: 10_000)
        let error = expectError(doc)
        XCTAssertEqual(error?.message, "nesting deeper than 256 levels")
        XCTAssertEqual(error?.line, 1)
    }

    func testTruncatedDocument() throws {
        let error = expectError("<?xml version=\"1.0\"?>\n<icalendar>\n <vcalendar>\n  <properties>\n   <prodid><text>x")
        XCTAssertEqual(error?.file, "hostile.xml")
        XCTAssertEqual(error?.line, 5)
        XCTAssertEqual(error?.message, "the document ends before <vcalendar> is closed (truncated?)")
    }

    func testInvalidUTF8() throws {
        var bytes = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<r>caf".utf8)
        bytes += [0xE9]  // Latin-1 é in a UTF-8 document
        bytes += Array("</r>\n".utf8)
        do {
            try consume(XMLBytesInput(bytes))
            XCTFail("expected an error")
        } catch let error as XMLError {
            XCTAssertEqual(error.line, 2)
            XCTAssertTrue(error.message.hasPrefix("Input is not proper UTF-8, indicate encoding !"), error.message)
        }
    }

    func testUnknownEncodingDeclaration() throws {
        let error = expectError("<?xml version=\"1.0\" encoding=\"x-no-such-charset\"?>\n<r/>\n")
        XCTAssertEqual(error?.message, "Unsupported encoding x-no-such-charset")
        XCTAssertEqual(error?.line, 1)
    }

    func testUTF16DeclaredButUTF8Given() throws {
        let error = expectError("<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<r>text</r>\n")
        XCTAssertEqual(error?.message, "Document labelled UTF-16 but has UTF-8 content")
    }

    func testLatin1DeclaredIsDecoded() throws {
        var bytes = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<r><a>caf".utf8)
        bytes += [0xE9]
        bytes += Array("</a></r>\n".utf8)
        let reader = try XMLStreamReader(input: XMLBytesInput(bytes), label: "latin1.xml")
        XCTAssertTrue(try reader.nextElement())
        XCTAssertTrue(try reader.nextElement())
        XCTAssertEqual(try reader.expand().text, "café")
    }
}

/// Peak resident set size of this process so far.
func peakResidentBytes() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss * 1024
}

/// Watches a FIFO: trying a non-blocking writer open succeeds only while someone has the FIFO open for reading.
final class FIFOWatcher: @unchecked Sendable {
    private let path: String
    private let lock = NSLock()
    private var running = true
    private var sawReader = false
    private let done = DispatchSemaphore(value: 0)

    init(path: String) { self.path = path }

    var opened: Bool { lock.lock(); defer { lock.unlock() }; return sawReader }

    func start() {
        Thread.detachNewThread { [self] in
            while true {
                lock.lock()
                let keepGoing = running
                lock.unlock()
                if !keepGoing { break }
                let fd = open(path, O_WRONLY | O_NONBLOCK)
                if fd >= 0 {
                    lock.lock(); sawReader = true; lock.unlock()
                    _ = "<x/>".withCString { write(fd, $0, 4) }
                    close(fd)
                }
                usleep(1000)
            }
            done.signal()
        }
    }

    func stop() {
        lock.lock(); running = false; lock.unlock()
        done.wait()
    }
}

/// A TCP listener on 127.0.0.1 that counts the connections it accepts.
final class LocalListener: @unchecked Sendable {
    let port: UInt16
    private let socketFD: Int32
    private let lock = NSLock()
    private var accepted = 0

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        socketFD = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 8) == 0 else { throw XMLError(message: "cannot listen", line: 0, column: 0) }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = UInt16(bigEndian: address.sin_port)
        startAccepting()
    }

    private func startAccepting() {
        let fd = socketFD
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { break }
                lock.lock(); accepted += 1; lock.unlock()
                close(client)
            }
        }
    }

    func connections() -> Int {
        lock.lock(); defer { lock.unlock() }
        return accepted
    }

    deinit {
        shutdown(socketFD, Int32(SHUT_RDWR))
        close(socketFD)
    }
}
