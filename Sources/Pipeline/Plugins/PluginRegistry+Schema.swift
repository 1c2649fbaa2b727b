extension PluginRegistry {
    /// A JSON Schema (draft 2020-12) of pipeline files, made from the plugins' declared options: what
    /// `calpipe schema` prints, for editors and for checking pipeline files in other tools. It checks the
    /// shape (keys, kinds, allowed values); `calpipe validate` also checks what the values mean.
    package func pipelineSchema() -> JSONValue {
        func object(_ members: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(members.map { (key: $0.0, value: $0.1) })) }
        func strings(_ values: [String]) -> JSONValue { .array(values.map { .string($0) }) }

        func optionSchema(_ doc: OptionDoc) -> JSONValue {
            var members: [(String, JSONValue)] = [("description", .string(doc.summary))]
            switch doc.kind {
            case .boolean: members.append(("type", .string("boolean")))
            case .integer: members.append(("type", .string("integer")))
            case .number: members.append(("type", .string("number")))
            case .array:
                members.append(("type", strings(["array", "string"])))
                if let item = doc.itemKind { members.append(("items", object([("type", .string(item.rawValue))]))) }
            case .byteSize, .duration: members.append(("type", strings(["string", "number"])))
            case .object:
                members.append(("type", .string("object")))
                if let nested = doc.members {
                    members.append(("properties", object(nested.map { ($0.name, optionSchema($0)) })))
                    let required = nested.filter(\.required).map(\.name)
                    if !required.isEmpty { members.append(("required", strings(required))) }
                    members.append(("additionalProperties", .bool(false)))
                } else if let item = doc.itemKind {
                    // A map of names to texts (`.stringMap`).
                    members.append(("additionalProperties", object([("type", .string(item.rawValue))])))
                }
            default: members.append(("type", .string("string")))
            }
            if let pattern = doc.pattern { members.append(("pattern", .string(pattern))) }
            if !doc.values.isEmpty { members.append(("enum", strings(doc.values))) }
            if doc.kind == .integer || doc.kind == .number {
                if let minimum = doc.minimum { members.append(("minimum", .number(minimum))) }
                if let maximum = doc.maximum { members.append(("maximum", .number(maximum))) }
            }
            if let value = doc.defaultJSON { members.append(("default", value)) }
            if doc.isSecret { members.append(("writeOnly", .bool(true))) }
            return object(members)
        }

        func section(_ kind: PluginKind, _ plugins: [(type: String, summary: String, options: [OptionDoc])]) -> JSONValue {
            let rules: [JSONValue] = plugins.map { plugin in
                var properties: [(String, JSONValue)] = [("type", object([("const", .string(plugin.type))]))]
                for doc in plugin.options { properties.append((doc.name, optionSchema(doc))) }
                let required = ["type"] + plugin.options.filter(\.required).map(\.name)
                return object([
                    ("if", object([("properties", object([("type", object([("const", .string(plugin.type))]))]))])),
                    ("then", object([
                        ("description", .string(plugin.summary)),
                        ("properties", object(properties)),
                        ("required", strings(required)),
                        ("additionalProperties", .bool(false)),
                    ])),
                ])
            }
            return object([
                ("type", .string("array")),
                ("items", object([
                    ("type", .string("object")),
                    ("required", strings(["type"])),
                    ("properties", object([("type", object([("enum", strings(plugins.map(\.type).sorted()))]))])),
                    ("allOf", .array(rules)),
                ])),
            ])
        }

        var top: [(String, JSONValue)] = []
        for doc in PipelineLoader.topLevelOptions {
            switch doc.name {
            case "sources": top.append((doc.name, section(.source, sources.map { ($0.type, $0.summary, $0.options) })))
            case "stages": top.append((doc.name, section(.stage, stages.map { ($0.type, $0.summary, $0.options) })))
            case "sinks": top.append((doc.name, section(.sink, sinks.map { ($0.type, $0.summary, $0.options) })))
            default: top.append((doc.name, optionSchema(doc)))
            }
        }
        return object([
            ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
            ("title", .string("calpipe pipeline")),
            ("type", .string("object")),
            ("required", strings(PipelineLoader.topLevelOptions.filter(\.required).map(\.name))),
            ("additionalProperties", .bool(false)),
            ("properties", object(top)),
        ])
    }
}
