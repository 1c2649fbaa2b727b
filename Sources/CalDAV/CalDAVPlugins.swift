import Pipeline

/// The CalDAV plugins, registered by `PluginRegistry.standard`.
package enum CalDAVPlugins {
    package static var sources: [SourceDescriptor] { [CalDAVServerSource.descriptor] }
    package static var sinks: [SinkDescriptor] { [CalDAVSink.descriptor] }
}
