import Pipeline

/// What one forecast request is about, besides its places and days.
package struct ForecastQuery {
    /// The pipeline's zone: daily values are for its local days.
    package var zone: Zone
    package var today: CivilDate
    package var units: ForecastUnits
    package var context: RunContext

    /// For the HTTP client: true once the run is interrupted.
    package var isCancelled: @Sendable () -> Bool {
        let cancellation = context.cancellation
        return { cancellation.cancelledReason != nil }
    }
}
