/// `type: transform`: an ordered list of rules, each a `match` (every condition must hold) and actions, applied to
/// each event in turn like a mail filter: remove it, change its title, location or description (set, replace,
/// regex with groups, prefix, suffix), set its colour, categories, calendar name or transparency, hide its details
/// (`"privacy": "busy"`), or `stop` (no later rule applies). docs/transforms.md.
///
/// It works on events as read (`EventStage`: before `expand` and `split`), so every sink sees the same result: a
/// calendar sink writes the changed series with its rules, the agenda shows its changed days. Recurring series:
/// - a rule that changes an event applies to the event: a series master's changes reach all its instances; each
///   RECURRENCE-ID override is an event of its own and is matched by its own fields and times;
/// - a `remove` rule with `weekday` or `time_of_day` removes the *instances* of a series that match: they become
///   EXDATEs of the master (for its instances from DTSTART to the end of the window, at least a year ahead), so
///   no sink shows them; the other rules go on with the rest of the series;
/// - `remove` on an override cancels it (STATUS:CANCELLED) rather than dropping it, which would bring back the
///   instance it replaced; `expand` leaves cancelled instances out, and a calendar sink writes it cancelled.
public final class TransformStage: Stage, EventStage {
    public static let descriptor = StageDescriptor(
        type: "transform",
        kind: .stage,
        summary: "Change or remove events by ordered rules (match title, source, weekday, ...; set, prefix, regex, busy, remove, stop); before expand",
        options: [
            OptionDoc("rules", "array", required: true,
                      "the rules, in order: {\"match\": {...}, then actions: remove, privacy, title, location, description, color, categories, calendar, transparency, stop} (docs/transforms.md)"),
        ],
        make: { options in
            let rules = TransformRule.rules(options)
            try options.finish()
            guard let rules else { throw CalpipeError.optionsRejected }
            return TransformStage(rules: rules)
        }
    )

    let rules: [TransformRule]

    init(rules: [TransformRule]) {
        self.rules = rules
    }

    /// Most instances of one series the occurrence rules look at; past it the stage warns.
    static let maxInstances = 100_000

    /// What the rules made of one event.
    enum Outcome {
        case kept
        case changed
        case removed
        /// An override that a `remove` rule cancelled.
        case cancelled
    }

    public func process(_ batch: Batch, context: RunContext) throws -> Batch {
        try requireEvents(batch, type: "transform")
        var out = batch
        var keep = [Bool](repeating: true, count: batch.events.count)
        var removed = 0, changed = 0, instances = 0
        for i in batch.events.indices {
            var event = batch.events[i]
            switch apply(to: &event, context: context, instancesRemoved: &instances) {
            case .kept: break
            case .changed, .cancelled:
                changed += 1
                out.replaceEvent(at: i, with: event)
            case .removed:
                removed += 1
                keep[i] = false
            }
        }
        if removed > 0 {
            // The batch holds events only (`requireEvents`): `keepEvents` asks about each of them once, in order.
            var next = 0
            out.keepEvents { _ in
                defer { next += 1 }
                return keep[next]
            }
        }
        if removed > 0 { context.report.count("events removed by transform", by: removed) }
        if changed > 0 { context.report.count("events changed by transform", by: changed) }
        if instances > 0 { context.report.count("instances removed by transform (EXDATE)", by: instances) }
        return out
    }

    /// Runs the rules on one event, in order.
    func apply(to event: inout Event, context: RunContext, instancesRemoved: inout Int) -> Outcome {
        let zone = context.zone
        var outcome = Outcome.kept
        for rule in rules {
            guard rule.match.holdsForEvent(event, zone: zone) else { continue }
            if rule.actions.remove, rule.match.testsOccurrences, event.isRecurring, event.recurrenceID == nil {
                let n = excludeInstances(of: &event, matching: rule.match, context: context)
                if n > 0 {
                    instancesRemoved += n
                    event.sourceText = nil
                    outcome = .changed
                }
                continue
            }
            guard rule.match.holdsForInstance(start: event.start, zone: zone) else { continue }
            if rule.actions.remove {
                guard event.recurrenceID != nil else { return .removed }
                event.status = "CANCELLED"
                event.sourceText = nil
                return .cancelled
            }
            if rule.actions.apply(to: &event) { outcome = .changed }
            if rule.actions.stop { break }
        }
        return outcome
    }

    /// Adds an EXDATE to `master` for each of its instances that `match`'s occurrence conditions hold for, from
    /// DTSTART to the end of the window (at least today + 365 days, the `expand` stage's horizon without one).
    /// Returns how many it added.
    func excludeInstances(of master: inout Event, matching match: EventMatch, context: RunContext) -> Int {
        let zone = context.zone
        let horizon = zone.utc(fromLocal: CivilDateTime(date: context.environment.today.adding(days: ExpandStage.defaultHorizonDays)))
        let windowEnd = context.window.map { $0.utcRange(in: zone).1 } ?? horizon
        var expander = SeriesExpander(zone: zone, span: SeriesExpander.Span(from: nil, to: max(windowEnd, horizon)),
                                      maxOccurrences: Self.maxInstances, includeCancelled: true)
        var result = expander.expand(master)
        if result.truncated, let window = context.window {
            // Too many from DTSTART on: at least the window's instances.
            expander.span.from = window.utcRange(in: zone).0
            result = expander.expand(master)
        }
        if result.truncated {
            context.warn("event \"\(master.uid)\"\(ExpandStage.place(master)) has more than \(Self.maxInstances) instances; a transform rule removed the matching ones among the first \(Self.maxInstances) only")
        }
        var excluded = Set(master.recurrence.exceptionDates)
        var added = 0
        for occurrence in result.occurrences where match.holdsForInstance(start: occurrence.start, zone: zone) {
            guard let id = occurrence.recurrenceID, excluded.insert(id).inserted else { continue }
            master.recurrence.exceptionDates.append(id)
            added += 1
        }
        return added
    }
}
