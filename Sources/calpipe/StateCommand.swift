import ArgumentParser
import CalpipeKit
import Foundation
import Pipeline

struct StateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Print the state the plugins of a pipeline kept from its last successful run, as JSON.",
        discussion: """
            A source's sync token, cursor or ETags and a sink's remote ETags, by plugin name: in the database of \
            the pipeline's sqlite sink, else in calpipe's state folder. `calpipe run --full` ignores it.

            Example:
              calpipe state pipelines/demo.json
            """
    )

    @Argument(help: "The pipeline file.")
    var pipeline: String

    func run() throws {
        let loader = try PipelineSession.loader()
        let definition = try loader.load(file: pipeline)
        let stateFile = PluginStateFile.path(for: pipeline, environment: definition.environment.environment)
        print(JSONWriter(pretty: true).string(try PluginStateFile.document(definition, stateFile: stateFile)))
    }
}
