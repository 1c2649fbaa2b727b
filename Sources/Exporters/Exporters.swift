import Pipeline

/// The sinks this module provides, for the executable's registry. Each format adds its descriptor here.
public enum Exporters {
    public static var all: [SinkDescriptor] {
        [
            JSONExporter.descriptor,
            SQLiteSink.descriptor,
            ICSSink.descriptor,
            XCalSink.descriptor,
            JCalSink.descriptor,
            HTMLSink.descriptor,
        ]
    }
}
