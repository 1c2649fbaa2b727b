import Foundation
import Prometheus

/// `/metrics` in Prometheus's text format: per pipeline its runs, failures and last success, how far its served
/// data lags, and the age of each upstream feed's copy. Counters count as runs end; ages are set when scraped.
final class ServeMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let board: FeedBoard

    static var runs: MetricNameDescriptor { MetricNameDescriptor(namespace: "calpipe", subsystem: "pipeline", metricName: "runs", unitName: "total",
                                           helpText: "Runs of the pipeline") }
    static var failures: MetricNameDescriptor { MetricNameDescriptor(namespace: "calpipe", subsystem: "pipeline", metricName: "failures", unitName: "total",
                                               helpText: "Runs that failed (the last good outputs stayed served)") }
    static var lastSuccess: MetricNameDescriptor { MetricNameDescriptor(namespace: "calpipe", subsystem: "pipeline", metricName: "last_success_timestamp", unitName: "seconds",
                                                  helpText: "When the pipeline last ran successfully (Unix time)") }
    static var servedAge: MetricNameDescriptor { MetricNameDescriptor(namespace: "calpipe", subsystem: "served", metricName: "data_age", unitName: "seconds",
                                                helpText: "How far the served outputs lag behind their upstreams (0: current)") }
    static var upstreamAge: MetricNameDescriptor { MetricNameDescriptor(namespace: "calpipe", subsystem: "upstream", metricName: "age", unitName: "seconds",
                                                  helpText: "Age of the copy of an upstream feed the served outputs were made from") }

    init(board: FeedBoard) {
        self.board = board
    }

    func runEnded(_ pipeline: String, failed: Bool) {
        registry.makeCounter(descriptor: Self.runs, labels: [("pipeline", pipeline)]).increment()
        let failures = registry.makeCounter(descriptor: Self.failures, labels: [("pipeline", pipeline)])
        if failed { failures.increment() }
    }

    func text(now: Date = Date()) -> [UInt8] {
        for (pipeline, status) in board.allStatus() {
            let labels = [("pipeline", pipeline)]
            if let success = status.lastSuccess {
                registry.makeGauge(descriptor: Self.lastSuccess, labels: labels).set(success.timeIntervalSince1970.rounded(.down))
                for upstream in status.upstreamAges {
                    registry.makeGauge(descriptor: Self.upstreamAge, labels: labels + [("upstream", upstream.label)])
                        .set((upstream.seconds + now.timeIntervalSince(success)).rounded(.down))
                }
            }
            registry.makeGauge(descriptor: Self.servedAge, labels: labels).set(Double(status.staleAge(now: now) ?? 0))
        }
        var out: [UInt8] = []
        registry.emit(into: &out)
        return out
    }
}
