/// The work the rule engines of one run may spend together, shared by every series the expand stage expands
/// (on its thread and on the series worker): each rule still gets `RecurrenceRule.workBudget` periods, but
/// once the run has spent `total`, each further run of a rule gets `floor`. So a feed of thousands of rules
/// that match almost never (each walking up to its budget) ends in bounded time, with a warning; a real feed
/// spends a small part of it (a year of a DAILY rule is 365 periods). Thread-safe.
package final class RuleWorkAllowance: Sendable {
    /// 20 rules' budgets: about five seconds of a release build.
    package static let defaultTotal = 20 * RecurrenceRule.workBudget
    package static let defaultFloor = 200_000

    package let total: Int
    package let floor: Int
    private let left: Locked<Int>

    package init(total: Int = RuleWorkAllowance.defaultTotal, floor: Int = RuleWorkAllowance.defaultFloor) {
        self.total = total
        self.floor = floor
        left = Locked(total)
    }

    /// The budget of a rule's next run: the rule's own, or what is left of the run's when less (at least `floor`).
    package func grant() -> Int {
        left.withLock { Swift.max(floor, Swift.min(RecurrenceRule.workBudget, $0)) }
    }

    package func spend(_ work: Int) {
        guard work > 0 else { return }
        left.withLock { $0 = Swift.max(0, $0 - work) }
    }

    /// True once the run spent all of `total`.
    package var isSpent: Bool { left.withLock { $0 == 0 } }
}
