import CalXML
import Pipeline

/// An XML problem reaches the user as a `CalpipeError` with its file, line and column.
extension XMLError: CalpipeErrorConvertible {
    public var calpipeError: CalpipeError {
        CalpipeError(message, file: file, line: line > 0 ? line : nil, column: column > 0 ? column : nil, cause: self)
    }
}
