/// A stage that works on events as read (`transform`, `dedupe`): it changes, drops or compares events before they
/// are expanded into occurrences and split into days, so what it does reaches every sink alike, the calendar sinks
/// that write the events (with their rules) as much as the agenda that shows their days. The loader refuses it
/// after a stage that makes occurrences or day entries (`PipelineLoader.checkEventStageOrder`), and puts an
/// `expand` it adds after it.
package protocol EventStage: Stage {}

extension EventStage {
    /// Throws when a batch holds occurrences or day entries (a pipeline built in code with the stage placed after
    /// `expand` or `split`, which the loader would have refused).
    func requireEvents(_ batch: Batch, type: String) throws {
        guard batch.content.isDisjoint(with: [.occurrences, .days]) else {
            throw CalpipeError("the \"\(type)\" stage got occurrences or day entries: it works on events as read and must come before \"expand\" and \"split\"",
                               kind: .usage)
        }
    }
}
