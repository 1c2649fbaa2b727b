import ArgumentParser
import CalpipeKit

struct Plugins: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the sources, stages and sinks a pipeline can use.",
        discussion: """
            Example:
              calpipe plugins
              calpipe plugins --json
            """
    )

    @Flag(help: "Print the list as JSON for machines.")
    var json = false

    func run() throws {
        let registry = PluginRegistry.standard
        let groups: [(PluginKind, [(type: String, summary: String, options: [OptionDoc], extensions: [String])])] = [
            (.source, registry.sources.map { ($0.type, $0.summary, $0.options, $0.fileExtensions) }),
            (.stage, registry.stages.map { ($0.type, $0.summary, $0.options, $0.fileExtensions) }),
            (.sink, registry.sinks.map { ($0.type, $0.summary, $0.options, $0.fileExtensions) }),
        ]
        if json {
            var root = JSONObject()
            for (kind, plugins) in groups {
                root[kind.section] = .array(plugins.sorted { $0.type < $1.type }.map { plugin in
                    var o = JSONObject()
                    o["type"] = .string(plugin.type)
                    o["summary"] = .string(plugin.summary)
                    if !plugin.extensions.isEmpty { o["file_extensions"] = .array(plugin.extensions.map { .string($0) }) }
                    o["options"] = .array(plugin.options.map { doc in
                        var d = JSONObject()
                        d["name"] = .string(doc.name)
                        d["kind"] = .string(doc.kind.rawValue)
                        d["required"] = .bool(doc.required)
                        d["summary"] = .string(doc.summary)
                        if !doc.values.isEmpty { d["values"] = .array(doc.values.map { .string($0) }) }
                        if let v = doc.defaultValue { d["default"] = .string(v) }
                        return .object(d)
                    })
                    return .object(o)
                })
            }
            print(JSONWriter(pretty: true).string(.object(root)))
            return
        }
        for (kind, plugins) in groups {
            print("\(kind.section.uppercased())")
            for plugin in plugins.sorted(by: { $0.type < $1.type }) {
                print("  \(plugin.type.padding(14))\(plugin.summary)")
                for doc in plugin.options {
                    var text = "      \(doc.name.padding(18))\(doc.summary)"
                    if !doc.values.isEmpty { text += " [\(doc.values.joined(separator: "|"))]" }
                    if let d = doc.defaultValue { text += " (default: \(d))" }
                    if doc.required { text += " (required)" }
                    print(text)
                }
            }
            print("")
        }
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
