/// Waits between retries: `base * 2^retry`, capped, with "equal jitter" (half fixed, half random) so that
/// many clients failing together do not come back together.
struct Backoff {
    var base: Double
    var maximum: Double

    func wait(forRetry retry: Int, random: Double) -> Double {
        let exponential = min(maximum, base * Double(1 << min(retry, 20)))
        return exponential / 2 + exponential / 2 * min(max(random, 0), 1)
    }
}
