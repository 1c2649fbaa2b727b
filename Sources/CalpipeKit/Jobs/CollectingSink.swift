import Foundation
import Pipeline

/// A sink that keeps what reaches it in memory and hands it over on commit (the library's jobs that return values).
// @unchecked Sendable: `pending` is used only as the Sink protocol orders the calls (one run); `Box` is behind its lock.
final class CollectingSink: Sink, @unchecked Sendable {
    static let type = "calpipe-collect"

    /// What a run committed.
    final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var batch = Batch()
        var committed: Batch {
            get { lock.withLock { batch } }
            set { lock.withLock { batch = newValue } }
        }
    }

    static func descriptor(needs: BatchContent, into box: Box) -> SinkDescriptor {
        SinkDescriptor(type: type, kind: .sink, summary: "keeps what it gets in memory", make: { _ in CollectingSink(needs: needs, box: box) })
    }

    let needs: BatchContent
    let box: Box
    private var pending = Batch()
    init(needs: BatchContent, box: Box) { self.needs = needs; self.box = box }

    var label: String { Self.type }
    func open(context: RunContext) throws { pending = Batch(content: needs) }
    func write(_ batch: Batch, context: RunContext) throws {
        if needs.contains(.events) { pending.events += batch.events }
        if needs.contains(.occurrences) { pending.occurrences += batch.effectiveOccurrences }
        if needs.contains(.days) { pending.days += batch.days.map { var day = $0; day.occurrenceIndex = nil; return day } }
    }
    func commit(context: RunContext) throws -> Int {
        box.committed = pending
        return pending.events.count + pending.occurrences.count + pending.days.count
    }
    func abort(context: RunContext) { pending = Batch() }
}
