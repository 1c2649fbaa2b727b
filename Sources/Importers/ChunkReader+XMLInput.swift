import CalXML
import Pipeline

/// The XML reader takes its bytes from the same chunked file reader every other source uses.
extension ChunkReader: XMLInput {}

extension XMLStreamReader {
    /// Opens a source's input file ("-" for standard input) for streaming XML.
    convenience init(file: InputSpec.Input, progress: RunReport? = nil) throws {
        try self.init(input: ChunkReader(path: file.path, label: file.label, progress: progress), label: file.label)
    }
}
