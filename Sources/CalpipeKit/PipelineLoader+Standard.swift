import Fetch
import Foundation
import Pipeline

extension PipelineLoader {
    /// A loader with every standard plugin, reading URL inputs through calpipe's HTTP client and cache
    /// (`$CALPIPE_CACHE`, else `$XDG_CACHE_HOME/calpipe`, else `~/.cache/calpipe`; opened only when used;
    /// `CALPIPE_OFFLINE=1` in `environment`: only the cache answers).
    public static func standard(registry: PluginRegistry = .standard,
                                environment: [String: String] = ProcessInfo.processInfo.environment,
                                now: Date = Date()) -> PipelineLoader {
        var loader = PipelineLoader(registry: registry, environment: environment, now: now)
        loader.fetcher = HTTPFetcher(environment: environment)
        return loader
    }
}
