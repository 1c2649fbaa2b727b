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
                    o["options"] = .array(plugin.options.map(Self.json))
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
                for doc in plugin.options { Self.printOption(doc, indent: "      ") }
            }
            print("")
        }
    }
}

extension Plugins {
    /// One option for `--json`: its default as a JSON value when it has a fixed one, else in words; a nested
    /// object's options under "options".
    static func json(_ doc: OptionDoc) -> JSONValue {
        var d = JSONObject()
        d["name"] = .string(doc.name)
        d["kind"] = .string(doc.kind.rawValue)
        d["required"] = .bool(doc.required)
        d["summary"] = .string(doc.summary)
        if !doc.values.isEmpty { d["values"] = .array(doc.values.map { .string($0) }) }
        if let value = doc.defaultJSON { d["default"] = value } else if let text = doc.defaultValue { d["default"] = .string(text) }
        if let minimum = doc.minimum { d["minimum"] = .number(minimum) }
        if let maximum = doc.maximum { d["maximum"] = .number(maximum) }
        if doc.isSecret { d["secret"] = .bool(true) }
        if let members = doc.members { d["options"] = .array(members.map(json)) }
        return .object(d)
    }

    /// One option as a line of the list; a nested object's options below it, indented.
    static func printOption(_ doc: OptionDoc, indent: String) {
        var text = indent + doc.name.padding(max(4, 24 - indent.count)) + doc.summary
        if !doc.values.isEmpty { text += " [\(doc.values.joined(separator: "|"))]" }
        if let minimum = doc.minimum, let maximum = doc.maximum {
            text += " (\(JSONWriter.numberText(minimum)) to \(JSONWriter.numberText(maximum)))"
        }
        if let d = doc.defaultValue { text += " (default: \(d))" }
        if doc.required { text += " (required)" }
        print(text)
        for member in doc.members ?? [] { printOption(member, indent: indent + "  ") }
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
