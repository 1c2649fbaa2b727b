import CLibXML

/// Facts about the libxml2 this binary is built against.
public enum XMLLibrary {
    /// The version of libxml2's headers, e.g. "2.9.14".
    public static var version: String { LIBXML_DOTTED_VERSION }
}
