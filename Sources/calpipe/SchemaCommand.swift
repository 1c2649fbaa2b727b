import ArgumentParser
import CalpipeKit

struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a JSON Schema of pipeline files, made from every plugin's declared options.",
        discussion: """
            For editors and other tools; `calpipe validate` also checks what the values mean.

            Example:
              calpipe schema > pipeline.schema.json
            """
    )

    func run() throws {
        print(JSONWriter(pretty: true).string(PluginRegistry.standard.pipelineSchema()))
    }
}
