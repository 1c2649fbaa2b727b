// The core stages make their rows from the events, the zone, the window and their options alone: incremental
// runs may leave unchanged events out of them (docs/incremental.md). The forecast stage is not one of them.
extension ExpandStage: DeterministicStage {}
extension SplitStage: DeterministicStage {}
extension FilterStage: DeterministicStage {}
extension TransformStage: DeterministicStage {}
