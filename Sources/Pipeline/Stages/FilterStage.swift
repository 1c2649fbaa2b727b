/// `type: filter`: keeps the events, occurrences and day entries that match every given condition.
public final class FilterStage: Stage {
    public static let descriptor = StageDescriptor(
        type: "filter",
        kind: .stage,
        summary: "Keep only events matching a title/location/category/status condition",
        options: Options.self,
        make: { options, _ in
            FilterStage(titleContains: options.titleContains, locationContains: options.locationContains, categories: options.categories,
                        excludeCancelled: options.excludeCancelled, allDay: options.allDay)
        }
    )

    /// The `filter` stage's options.
    public struct Options: OptionConfig {
        public var titleContains: String?
        public var locationContains: String?
        public var categories: [String]?
        public var excludeCancelled = true
        public var allDay: Bool?

        public init() {}

        public static let options = OptionSpec<Options> {
            Key("title_contains", \.titleContains, .string, "keep events whose title contains this text (case-insensitive)")
            Key("location_contains", \.locationContains, .string, "keep events whose location contains this text (case-insensitive)")
            Key("categories", \.categories, .strings, "keep events with at least one of these categories")
            Key("exclude_cancelled", \.excludeCancelled, .boolean, "drop events and occurrences whose STATUS is CANCELLED")
            Key("all_day", \.allDay, .boolean, "keep only all-day (true) or only timed (false) events")
        }
    }

    let titleContains: String?
    let locationContains: String?
    let categories: Set<String>?
    let excludeCancelled: Bool
    let allDay: Bool?

    public init(titleContains: String? = nil, locationContains: String? = nil, categories: [String]? = nil, excludeCancelled: Bool = true, allDay: Bool? = nil) {
        self.titleContains = titleContains?.lowercased()
        self.locationContains = locationContains?.lowercased()
        self.categories = categories.map { Set($0.map { $0.lowercased() }) }
        self.excludeCancelled = excludeCancelled
        self.allDay = allDay
    }

    public func matches(_ event: Event) -> Bool {
        if let t = titleContains, !(event.title?.lowercased().contains(t) ?? false) { return false }
        if let l = locationContains, !(event.location?.lowercased().contains(l) ?? false) { return false }
        if let c = categories, !event.categories.contains(where: { c.contains($0.lowercased()) }) { return false }
        if excludeCancelled, event.isCancelled { return false }
        if let allDay, event.isAllDay != allDay { return false }
        return true
    }

    public func process(_ batch: Batch, context: RunContext) throws -> Batch {
        var out = batch
        // `Batch.keepEvents` keeps the days' links to their occurrences (`Batch`'s contract).
        out.keepEvents(where: matches)
        context.report.count("filtered out", by: batch.events.count - out.events.count)
        return out
    }
}
