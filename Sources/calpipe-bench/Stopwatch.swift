/// Runs a piece of work repeatedly until enough time has passed, and reports the rate.
struct Stopwatch {
    /// The least time to measure for one figure.
    var minimumSeconds: Double

    /// Calls `work` (which returns how many items it produced) until `minimumSeconds` have passed, after one
    /// warm-up call. Returns items per second.
    func rate(_ work: () -> Int) -> Double {
        _ = work()
        let clock = ContinuousClock()
        var items = 0
        let start = clock.now
        var elapsed = Duration.zero
        repeat {
            items += work()
            elapsed = clock.now - start
        } while seconds(elapsed) < minimumSeconds
        return Double(items) / seconds(elapsed)
    }

    func seconds(_ d: Duration) -> Double {
        let (s, atto) = d.components
        return Double(s) + Double(atto) / 1e18
    }
}
