import Pipeline

/// The sinks this module provides, for the standard registry (CalpipeKit). Each format adds its descriptor here.
public enum SinkPlugins {
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
