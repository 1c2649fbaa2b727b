import Pipeline

/// The sources this module provides, for the standard registry (CalpipeKit). Each format adds its descriptor here.
package enum SourcePlugins {
    package static var all: [SourceDescriptor] {
        [
            JSONImporter.descriptor,
            ICSSource.descriptor,
            XCalSource.descriptor,
            JCalSource.descriptor,
            CalDAVSource.descriptor,
            MappedXMLSource.descriptor,
        ]
    }
}
