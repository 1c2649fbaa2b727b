import Foundation

extension SHA256 {
    /// The length and hex digest of a file, read in 1 MiB pieces (a feed of any size never sits in memory).
    /// Nil when the file cannot be read.
    package static func digest(ofFile path: String) -> (length: Int64, hex: String)? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var hasher = SHA256()
        var length: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { break }
            hasher.update(buffer: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            length += Int64(n)
        }
        return (length, hasher.finishHex())
    }
}
