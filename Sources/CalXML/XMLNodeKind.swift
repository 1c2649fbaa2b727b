import CLibXML

/// What the streaming reader is positioned on.
package enum XMLNodeKind: Sendable, Equatable {
    case element
    case endElement
    case text
    case whitespace
    case comment
    case processingInstruction
    case documentType
    case entityReference
    case other(Int)

    init(readerType: Int32) {
        switch UInt32(readerType) {
        case XML_READER_TYPE_ELEMENT.rawValue: self = .element
        case XML_READER_TYPE_END_ELEMENT.rawValue: self = .endElement
        case XML_READER_TYPE_TEXT.rawValue, XML_READER_TYPE_CDATA.rawValue: self = .text
        case XML_READER_TYPE_WHITESPACE.rawValue, XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue: self = .whitespace
        case XML_READER_TYPE_COMMENT.rawValue: self = .comment
        case XML_READER_TYPE_PROCESSING_INSTRUCTION.rawValue: self = .processingInstruction
        case XML_READER_TYPE_DOCUMENT_TYPE.rawValue: self = .documentType
        case XML_READER_TYPE_ENTITY_REFERENCE.rawValue: self = .entityReference
        default: self = .other(Int(readerType))
        }
    }
}
