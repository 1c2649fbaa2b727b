import Pipeline

/// What one forecast request is about, besides its places and days.
public struct ForecastQuery {
    /// The pipeline's zone: daily values are for its local days.
    public var zone: Zone
    public var today: CivilDate
    public var units: ForecastUnits
    public var context: RunContext

    /// For the HTTP client: true once the run is interrupted.
    public var isCancelled: @Sendable () -> Bool {
        let cancellation = context.cancellation
        return { cancellation.cancelledReason != nil }
    }
}
