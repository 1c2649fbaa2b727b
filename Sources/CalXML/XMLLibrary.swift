import CLibXML

/// Facts about the libxml2 this binary is linked against.
public enum XMLLibrary {
    /// The version of libxml2 in use, e.g. "20914".
    public static var version: String {
        guard let text = __xmlParserVersion()?.pointee else { return "unknown" }
        return String(cString: text)
    }
}
