import Foundation
import Pipeline

/// Where, in one file, the quick pass of an incremental run (`ICSSource.scan`) found VEVENTs whose raw text a
/// stored event has, so that reading the file (`ICSSource.read`) skips their bytes unread when the run's check
/// agrees (`ICSReader.skipEvent`) instead of scanning, unfolding and hashing them a second time.
///
/// Only events the scanner reads exactly as the quick pass does are noted: at most VALARMs nested in them (each
/// closed before END:VEVENT; with one, the text is ASCII, since the scanner parses such an event's earlier lines
/// and may warn about their encoding), ending in a line end before the end of the file. The regions hold only while
/// the file is the one the quick pass read (same device, inode, size and modification time).
struct ICSUnchangedRegions {
    /// One event: its bytes from the start of its BEGIN:VEVENT line to the start of the line after its END:VEVENT
    /// (folded continuations included).
    struct Region {
        var start: Int
        /// The stored event with the event's text.
        var stored: StoredText
        var length: UInt32
        /// Physical lines (line feeds) in the region.
        var lines: UInt32
        /// How deep components are nested in the event (0 or 1: VALARMs).
        var depth: UInt8
    }

    private(set) var regions: [Region] = []
    /// The file as the quick pass opened it.
    let identity: FileIdentity

    init(identity: FileIdentity) {
        self.identity = identity
    }

    mutating func append(start: Int, end: Int, lines: Int, stored: StoredText, depth: Int) {
        let previousEnd = regions.last.map { $0.start + Int($0.length) } ?? 0
        guard start >= previousEnd, end > start, end - start <= Int(UInt32.max), lines <= Int(UInt32.max) else { return }
        regions.append(Region(start: start, stored: stored, length: UInt32(end - start), lines: UInt32(lines), depth: UInt8(depth)))
    }

    /// Device, inode, size and modification time of a file.
    struct FileIdentity: Equatable {
        var device: UInt64, inode: UInt64, size: Int64, seconds: Int, nanoseconds: Int

        init?(descriptor: Int32) {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { return nil }
            self.init(info)
        }

        init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            self.init(info)
        }

        private init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            seconds = info.st_mtim.tv_sec
            nanoseconds = info.st_mtim.tv_nsec
        }
    }

    /// Hands a file's bytes to a reader chunk by chunk, leaving out the regions the reader agrees to skip.
    struct Feeder {
        private let regions: [Region]
        private var next = 0
        /// File offset of the next byte.
        private var offset = 0
        /// While skipping: the offset where the skipped region ends.
        private var skipEnd: Int?
        /// How many regions were skipped.
        private(set) var skipped = 0

        /// `regions` apply only when the file at `path` is still the one the quick pass read.
        init(_ regions: ICSUnchangedRegions?, path: String) {
            if let regions, FileIdentity(path: path) == regions.identity {
                self.regions = regions.regions
            } else {
                self.regions = []
            }
        }

        /// `leaveOut`: whether the stored event of a region, at a line, is left out (the run's check).
        mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>, to reader: ICSReader, leaveOut: (StoredText, Int) -> Bool) throws {
            let n = chunk.count
            var at = 0
            while at < n {
                if let end = skipEnd {
                    at = min(n, end - offset)
                    if offset + at == end { skipEnd = nil }
                    continue
                }
                guard next < regions.count, regions[next].start < offset + n else {
                    try reader.feed(UnsafeBufferPointer(rebasing: chunk[at..<n]))
                    break
                }
                let region = regions[next]
                next += 1
                let start = region.start - offset
                guard start >= at else { continue }
                if start > at { try reader.feed(UnsafeBufferPointer(rebasing: chunk[at..<start])) }
                at = start
                if try reader.skipEvent(lines: Int(region.lines), depth: Int(region.depth), leaveOut: { leaveOut(region.stored, $0) }) {
                    skipEnd = region.start + Int(region.length)
                    skipped += 1
                }
            }
            offset += n
        }
    }
}
