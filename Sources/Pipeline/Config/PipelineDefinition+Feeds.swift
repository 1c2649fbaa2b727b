extension PipelineDefinition {
    /// Why a `.delta` source cannot go to `sink`: the one text of the loader's diagnostic and the runner's check.
    static func deltaFeedMessage(source: String, sink: String, sinkPath: String) -> String {
        "\(source) sends only changes and deletions (a delta feed), but \(sinkPath) (\(sink)) writes whole files and "
            + "needs the whole feed; write a delta source to a sqlite sink"
    }

    /// Refuses a `.delta` source with a sink that does not apply deletions (the loader reports the same per source).
    func checkFeeds() throws {
        for (i, source) in sources.enumerated() where source.feed == .delta {
            let label = i < sourceLabels.count ? sourceLabels[i] : "sources[\(i)]"
            for (j, sink) in sinks.enumerated() where !sink.appliesDeletions {
                throw CalpipeError(Self.deltaFeedMessage(source: label, sink: sink.label, sinkPath: "sinks[\(j)]"), kind: .usage)
            }
        }
    }
}
