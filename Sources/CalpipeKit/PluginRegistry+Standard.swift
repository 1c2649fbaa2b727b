import CloudCalendars
import CalDAV
import Enrichers
import Exec
import Exporters
import Importers
import Pipeline
#if Postgres
import CalPostgres
#endif

extension PluginRegistry {
    /// Every plugin calpipe ships: the core stages, the sources, the enrichers and the sinks. A program that
    /// adds plugins of its own registers them on a copy: `var r = PluginRegistry.standard; r.register(...)`.
    public static var standard: PluginRegistry {
        var registry = PluginRegistry()
        for descriptor in CoreStages.all { registry.register(descriptor) }
        for descriptor in SourcePlugins.all { registry.register(descriptor) }
        for descriptor in CloudCalendarPlugins.all { registry.register(descriptor) }
        for descriptor in EnricherPlugins.all { registry.register(descriptor) }
        for descriptor in SinkPlugins.all { registry.register(descriptor) }
        registry.register(ExecSource.descriptor)
        registry.register(ExecStage.descriptor)
        registry.register(ExecSink.descriptor)
        for descriptor in CalDAVPlugins.sources { registry.register(descriptor) }
        for descriptor in CalDAVPlugins.sinks { registry.register(descriptor) }
        #if Postgres
        registry.register(PostgresSink.descriptor)
        #endif
        return registry
    }
}
