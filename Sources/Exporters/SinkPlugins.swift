import Pipeline

/// The sinks this module provides, for the standard registry (CalpipeKit). Each format adds its descriptor here.
package enum SinkPlugins {
    package static var all: [SinkDescriptor] {
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
