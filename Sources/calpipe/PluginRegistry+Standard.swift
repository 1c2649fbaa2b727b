import Enrichers
import Exporters
import Importers
import Pipeline

extension PluginRegistry {
    /// Every plugin calpipe ships: the core stages, the importers, the enrichers and the exporters.
    static var standard: PluginRegistry {
        var registry = PluginRegistry()
        for descriptor in CoreStages.all { registry.register(descriptor) }
        for descriptor in Importers.all { registry.register(descriptor) }
        for descriptor in Enrichers.all { registry.register(descriptor) }
        for descriptor in Exporters.all { registry.register(descriptor) }
        return registry
    }
}
