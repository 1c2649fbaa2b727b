import Pipeline

extension PipelineEnvironment {
    /// An HTTP client for a plugin of this pipeline. When the pipeline was loaded with calpipe's client
    /// (`PipelineLoader.standard`, the command-line tool), the new client takes turns at each host with it and
    /// with every other plugin's (one politeness gate per pipeline); else it has a gate of its own.
    /// - Parameters:
    ///   - cachePath: the cache file; nil: the pipeline client's (else the default path).
    ///   - settings: this plugin's timeouts, retries, rate limit and User-Agent.
    public func httpClient(cachePath: String? = nil, settings: HTTPSettings) -> HTTPFetcher {
        if let shared = fetcher as? HTTPFetcher { return shared.sibling(cachePath: cachePath, settings: settings) }
        return HTTPFetcher(cachePath: cachePath, environment: environment, settings: settings)
    }
}
