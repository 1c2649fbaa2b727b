import Foundation

/// Writes to standard error, and knows whether it is a terminal (for progress lines).
enum Terminal {
    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line.hasSuffix("\n") ? line : line + "\n").utf8))
    }

    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    /// Overwrites the current terminal line (progress).
    static func progress(_ text: String) {
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8))
    }

    static func clearProgress() {
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
