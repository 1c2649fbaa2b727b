import Pipeline

/// The sources this module provides, for the standard registry (CalpipeKit). Each format adds its descriptor here.
public enum SourcePlugins {
    public static var all: [SourceDescriptor] {
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
