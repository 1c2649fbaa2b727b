import CLibXML

/// Facts about the libxml2 this binary is built against.
package enum XMLLibrary {
    /// The version of libxml2's headers, e.g. "2.9.14".
    package static var version: String { LIBXML_DOTTED_VERSION }
}
