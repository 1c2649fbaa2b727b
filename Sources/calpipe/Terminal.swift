import Foundation

/// Writes to standard error, and knows whether it is a terminal (for progress lines).
enum Terminal {
    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line.hasSuffix("\n") ? line : line + "\n").utf8))
    }

    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    /// The width to cut output lines to: $COLUMNS, else the terminal's when standard output is one, else nil.
    static var outputWidth: Int? {
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let n = Int(text), n >= 20 { return n }
        guard isatty(STDOUT_FILENO) != 0 else { return nil }
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col >= 20 else { return nil }
        return Int(size.ws_col)
    }

    /// Overwrites the current terminal line (progress).
    static func progress(_ text: String) {
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8))
    }

    static func clearProgress() {
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
