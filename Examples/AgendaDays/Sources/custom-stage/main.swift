// A stage of the program's own, registered beside calpipe's plugins and run by a pipeline built in code: it
// marks the titles of events that have no location, then the events are printed as calpipe's JSON.
//
//     custom-stage FILE
import CalpipeKit
import Foundation

/// `type: remote-tag`: prefixes "[remote] " to the title of every event without a location.
final class RemoteTagStage: Stage {
    static let descriptor = StageDescriptor(type: "remote-tag", kind: .stage, summary: "tags events without a location",
                                            make: { _ in RemoteTagStage() })

    func process(_ batch: Batch, context: RunContext) throws -> Batch {
        var batch = batch
        for i in batch.events.indices where batch.events[i].location == nil {
            batch.events[i].title = "[remote] " + (batch.events[i].title ?? "")
        }
        return batch
    }
}

guard let input = CommandLine.arguments.dropFirst().first else {
    FileHandle.standardError.write(Data("usage: custom-stage FILE\n".utf8))
    exit(2)
}
do {
    var settings = Calpipe.Settings()
    settings.registry = Calpipe.registry(stages: [RemoteTagStage.descriptor])
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("custom-stage-\(getpid()).json").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    let format = try Conversion(input: input).sourceType(registry: settings.registry)
    try await Calpipe.run(pipeline: .object(JSONObject([
        ("sources", .array([.object(JSONObject([("type", .string(format)), ("path", .string(input))]))])),
        ("stages", .array([.object(JSONObject([("type", .string("remote-tag"))]))])),
        ("sinks", .array([.object(JSONObject([("type", .string("json")), ("path", .string(output)), ("shape", .string("events"))]))])),
    ])), settings: settings)
    FileHandle.standardOutput.write(try Data(contentsOf: URL(fileURLWithPath: output)))
} catch {
    FileHandle.standardError.write(Data("custom-stage: \(error)\n".utf8))
    exit(1)
}
