import Pipeline

/// The sources this module provides, for the executable's registry. Each format adds its descriptor here.
public enum Importers {
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
