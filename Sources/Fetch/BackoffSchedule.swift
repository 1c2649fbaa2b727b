/// Waits between retries: `base * 2^retry`, capped at `maximum`, with "equal jitter" (half fixed, half random)
/// so that many clients failing together do not come back together.
package struct BackoffSchedule: Sendable {
    package var base: Double
    package var maximum: Double

    package init(base: Double, maximum: Double) {
        self.base = base
        self.maximum = maximum
    }

    /// The wait before retry number `retry` (0 for the first), `random` drawn from 0...1.
    package func wait(forRetry retry: Int, random: Double) -> Double {
        let exponential = min(maximum, base * Double(1 << min(retry, 20)))
        return exponential / 2 + exponential / 2 * min(max(random, 0), 1)
    }
}
