extension RecordedServer {
    /// Forecast stage options that send every request to this server, with short retries for the tests.
    func forecastOptions(_ extra: [String: Any] = [:]) -> [String: Any] {
        var o: [String: Any] = ["base_url": base, "geocoding_url": base, "archive_url": base,
                                "max_requests_per_second": 0, "retry_budget": 0.5, "backoff": 0.05, "timeout": 5]
        for (k, v) in extra { o[k] = v }
        return o
    }
}
