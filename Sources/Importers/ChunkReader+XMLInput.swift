import CalXML
import Foundation
import Pipeline

/// The XML reader takes its bytes from the same chunked file reader every other source uses.
extension ChunkReader: XMLInput {}

extension XMLStreamReader {
    /// Opens a source's input file ("-" for standard input) for streaming XML.
    /// `expected` names the document ("an xCal document"): a file that is not XML at all (an .ics given to the
    /// xcal source) fails at once with a hint at the source type that reads it, instead of libxml2's "Document is
    /// empty".
    convenience init(file: InputSpec.Input, progress: RunReport? = nil, expected: String = "an XML document") throws {
        if file.path != "-", let hint = FormatSniffer.notXMLHint(ofFileAt: file.path, expected: expected) {
            throw CalpipeError(hint, file: file.label, line: 1)
        }
        try self.init(input: ChunkReader(path: file.path, label: file.label, progress: progress), label: file.label)
    }
}
