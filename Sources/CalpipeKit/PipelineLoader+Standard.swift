import Fetch
import Foundation
import Pipeline

extension PipelineLoader {
    /// A loader with every standard plugin, reading URL inputs through calpipe's HTTP client and cache
    /// (`$CALPIPE_CACHE`, else `$XDG_CACHE_HOME/calpipe`, else `~/.cache/calpipe`; opened only when used;
    /// `CALPIPE_OFFLINE=1` in `environment`: only the cache answers).
    ///
    /// `http`: the process's one HTTP client, for a program that loads many pipelines (a server, concurrent runs):
    /// every pipeline loaded with it, and every plugin's client made from them
    /// (`PipelineEnvironment.httpClient(settings:)`), shares its cache connection and its turns at each host, so
    /// two runs asking one host at once wait for each other. nil: a client of the loader's own, made from
    /// `environment` (one per loader, which the command-line tool, one run per process, uses).
    public static func standard(registry: PluginRegistry = .standard,
                                environment: [String: String] = ProcessInfo.processInfo.environment,
                                now: Date = Date(), http: HTTPFetcher? = nil) -> PipelineLoader {
        var loader = PipelineLoader(registry: registry, environment: environment, now: now)
        loader.fetcher = http ?? HTTPFetcher(environment: environment)
        return loader
    }
}
