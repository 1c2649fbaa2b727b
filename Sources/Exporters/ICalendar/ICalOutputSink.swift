import Pipeline

/// The `ics`, `xcal` and `jcal` sinks: a descriptor each, and the same body (`ICalExportOutput`), which this
/// protocol forwards every sink call to. A conforming sink holds the output and the path its label shows.
protocol ICalOutputSink: FileOutputSink {
    var output: ICalExportOutput { get }
    /// The path as the pipeline wrote it (its label), or the resolved one.
    var writtenPath: String { get }
}

extension ICalOutputSink {
    /// With a window, the events and the occurrences that tell which of them touch it (`ICalExportOutput.windowed`).
    package var needs: BatchContent { output.expand ? .occurrences : output.windowed ? [.events, .occurrences] : .events }
    package var label: String { "\(output.format) \(writtenPath)" }
    package var outputPath: String { output.path }
    /// A temporary file renamed over the target; standard output (`"-"`) is written as it goes and flushed in
    /// place, which cannot be taken back, so it commits as a transaction does (after the files, before their renames).
    package var commitKind: SinkCommit { output.path == "-" ? .transaction : .file }
    package func open(context: RunContext) throws { try output.open(context: context) }
    package func write(_ batch: Batch, context: RunContext) throws { try output.write(batch) }
    package func commit(context: RunContext) throws -> Int { try output.commit(context: context, label: label) }
    package func abort(context: RunContext) { output.abort() }
}
