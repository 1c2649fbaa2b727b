/// A source that sent no events (issue 16, "never silent, never destructive"): an empty input where a database
/// remembers events from the source keeps them (the run exits 1) unless the source allows it (`allow_empty`);
/// an input that is not empty but gave no events is a warning with the reason (the run exits 3), and keeps the
/// rows too.
enum EmptySource {
    /// `label` keys the source; `shown` names it in messages (its path from where the user stands).
    static func check(label: String, shown: String, source: any EventSource, allowEmpty: Bool, rejected: Int, context: RunContext) {
        let bytes = (source as? any FingerprintableSource)?.inputBytes(context: context)
        let incremental = context.runState.incremental
        let remembered = incremental?.isRemembered(label) ?? false
        let keeps = remembered && !allowEmpty
        if keeps { incremental?.keep(label) }
        guard let bytes, bytes > 0 else {
            let what = bytes == 0 ? "the input is empty" : "it sent no events"
            if keeps {
                context.report.keepSource("\(shown): \(what), but the database remembers events from it: they are kept (set \"allow_empty\": true on the source if this feed may really be empty)")
            } else if !allowEmpty && bytes == 0 {
                context.warn("\(shown): the input is empty: no events")
            }
            return
        }
        var reason = "\(bytes) byte\(bytes == 1 ? "" : "s") read but no events in them"
        reason += rejected > 0 ? " (\(rejected) record\(rejected == 1 ? "" : "s") rejected, see above)" : " (no event records of this format found)"
        if keeps { reason += "; the rows the database has from it are kept" }
        let message = "\(shown): \(reason)"
        context.warn(message)
        context.report.noEvents(message)
    }
}
