#if canImport(Glibc)
import Glibc
#endif
import Pipeline

/// Moves bytes between calpipe and a running program (`ChildProcess`) in one `poll` loop: what is queued for the
/// program's input is written as it can take it, its output is cut into lines for the plugin, and its error
/// output into lines that become warnings. Because all three move together, a program that answers before it has
/// read everything (or reads everything before it answers) cannot deadlock against calpipe; memory holds the
/// queued input and at most one unfinished line of each output (`maxLineBytes`).
///
/// Every wait is at most a tenth of a second, after which the run's cancellation and the program's deadline are
/// checked: a cancelled run or a program past its `timeout` is stopped (its whole process group) and reported.
final class ProcessPump {
    let child: ChildProcess
    /// The longest line accepted on either output.
    let maxLineBytes: Int
    private let deadline: Double?
    private let checkCancellation: () throws -> Void
    private let errorLine: (String) -> Void

    private var queued: [UInt8] = []
    private var queuedOffset = 0
    private var outputLines = LineSplitter()
    private var errorLines = LineSplitter()
    /// Lines read from the program's output so far.
    private(set) var outputLineCount = 0
    /// The last lines of error output, for the message when the program fails.
    private(set) var lastErrors: [String] = []
    /// Whether the program closed its input before taking everything queued.
    private(set) var inputRefused = false

    init(child: ChildProcess, maxLineBytes: Int = 16 << 20, checkCancellation: @escaping () throws -> Void, errorLine: @escaping (String) -> Void) {
        self.child = child
        self.maxLineBytes = maxLineBytes
        deadline = child.command.timeout.map { MonotonicClock.now + $0 }
        self.checkCancellation = checkCancellation
        self.errorLine = errorLine
    }

    /// Starts the program of an `exec` plugin for a run: its error output becomes the run's warnings
    /// (`exec stage: upper.py: <line>`), and the run's cancellation stops it.
    static func start(_ command: ExecCommand, withInput: Bool, context: RunContext) throws -> ProcessPump {
        let child = try ChildProcess.start(command, withInput: withInput)
        return ProcessPump(child: child, checkCancellation: { try context.checkCancellation() },
                           errorLine: { context.warn("\(command.plugin): \(command.label): \($0)") })
    }

    /// Queues bytes for the program's input; `pump` writes them.
    func send(_ bytes: [UInt8]) {
        if queuedOffset == queued.count { queued.removeAll(keepingCapacity: true); queuedOffset = 0 }
        queued += bytes
    }

    var hasQueuedInput: Bool { queuedOffset < queued.count }

    /// Pumps until `done()` holds (checked after every step) or the program's output has ended; calls `line` with
    /// each line of output (without its newline; empty lines are skipped) and its 1-based number.
    func pump(until done: () -> Bool, line: (ArraySlice<UInt8>, Int) throws -> Void) throws {
        do {
            while !done() {
                if child.output < 0 { return }
                try step(line: line)
            }
        } catch {
            child.stop()
            throw error
        }
    }

    /// Closes the program's input, reads the rest of its output (`line`, as `pump`), and waits for it to end.
    func finish(line: (ArraySlice<UInt8>, Int) throws -> Void) throws -> ExecExit {
        do {
            while hasQueuedInput, child.input >= 0 { try step(line: line) }
            child.closeInput()
            while child.output >= 0 || child.errors >= 0 { try step(line: line) }
            while true {
                if let exit = child.poll() { return exit }
                try checkLimits()
                usleep(2_000)
            }
        } catch {
            child.stop()
            throw error
        }
    }

    private func checkLimits() throws {
        try checkCancellation()
        if let deadline, MonotonicClock.now > deadline {
            throw child.command.failure("did not finish within \(DurationOption.describe(child.command.timeout ?? 0)) (the `timeout` option); it was stopped")
        }
    }

    private func step(line: (ArraySlice<UInt8>, Int) throws -> Void) throws {
        var fds: [pollfd] = []
        if child.output >= 0 { fds.append(pollfd(fd: child.output, events: Int16(POLLIN), revents: 0)) }
        if child.errors >= 0 { fds.append(pollfd(fd: child.errors, events: Int16(POLLIN), revents: 0)) }
        let writing = hasQueuedInput && child.input >= 0
        if writing { fds.append(pollfd(fd: child.input, events: Int16(POLLOUT), revents: 0)) }
        if fds.isEmpty { return }
        let rc = poll(&fds, nfds_t(fds.count), 100)
        try checkLimits()
        if rc < 0 {
            if errno == EINTR { return }
            throw child.command.failure("could not be read (\(String(cString: strerror(errno))))")
        }
        guard rc > 0 else { return }
        for fd in fds where fd.revents != 0 {
            if fd.fd == child.input {
                write()
            } else if fd.fd == child.output {
                try read(from: child.output, into: &outputLines, isOutput: true, line: line)
            } else if fd.fd == child.errors {
                try read(from: child.errors, into: &errorLines, isOutput: false, line: line)
            }
        }
    }

    private func write() {
        let n = queued.withUnsafeBytes { raw in
            Glibc.send(child.input, raw.baseAddress! + queuedOffset, queued.count - queuedOffset, Int32(MSG_NOSIGNAL))
        }
        if n > 0 {
            queuedOffset += n
        } else if n < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR {
            // The program closed its input (or ended): what is left can no longer reach it.
            inputRefused = true
            queued.removeAll()
            queuedOffset = 0
            child.closeInput()
        }
    }

    private var chunk = [UInt8](repeating: 0, count: 1 << 16)

    private func read(from fd: Int32, into splitter: inout LineSplitter, isOutput: Bool,
                      line: (ArraySlice<UInt8>, Int) throws -> Void) throws {
        let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
        if n < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
        }
        if n <= 0 {
            // End of this output: a last line without a newline still counts.
            if let rest = splitter.finish() { try deliver(rest, isOutput: isOutput, line: line) }
            if isOutput { child.closeOutput() } else { child.closeErrors() }
            return
        }
        splitter.append(chunk[0..<n])
        while let next = splitter.next() { try deliver(next, isOutput: isOutput, line: line) }
        if splitter.pending > maxLineBytes {
            let which = isOutput ? "an output" : "an error output"
            throw child.command.failure("wrote \(which) line longer than \(maxLineBytes >> 20) MiB; it was stopped")
        }
    }

    private func deliver(_ bytes: ArraySlice<UInt8>, isOutput: Bool, line: (ArraySlice<UInt8>, Int) throws -> Void) throws {
        if isOutput {
            outputLineCount += 1
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return }
            try line(bytes, outputLineCount)
        } else {
            var text = String(decoding: bytes, as: UTF8.self)
            if text.hasSuffix("\r") { text.removeLast() }
            guard text.contains(where: { !$0.isWhitespace }) else { return }
            if lastErrors.count == 3 { lastErrors.removeFirst() }
            lastErrors.append(text)
            errorLine(text)
        }
    }

    /// ` (its last error output: "...")`, or nothing, for failure messages.
    var lastErrorSuffix: String {
        guard let last = lastErrors.last else { return "" }
        return " (its last error output: \"\(last.count > 200 ? String(last.prefix(200)) + "..." : last)\")"
    }
}

/// Bytes cut at newlines.
struct LineSplitter {
    private var buffer: [UInt8] = []
    private var start = 0

    var pending: Int { buffer.count - start }

    mutating func append(_ bytes: ArraySlice<UInt8>) {
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 1 << 16, start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        buffer += bytes
    }

    mutating func next() -> ArraySlice<UInt8>? {
        guard let end = buffer[start...].firstIndex(of: 0x0A) else { return nil }
        defer { start = end + 1 }
        return buffer[start..<end]
    }

    mutating func finish() -> ArraySlice<UInt8>? {
        guard start < buffer.count else { return nil }
        defer { start = buffer.count }
        return buffer[start...]
    }
}
