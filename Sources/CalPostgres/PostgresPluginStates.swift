#if Postgres
import Pipeline

/// The plugins' states in the database (`plugin_state`), as the sqlite sink keeps them: read and written on the
/// run's connection, inside its transaction.
enum PostgresPluginStates {
    static func load(_ link: PostgresLink, pipeline: String, label: String) throws -> [String: PluginState] {
        var out: [String: PluginState] = [:]
        for row in try link.rows("SELECT plugin, state FROM plugin_state WHERE pipeline = $1 ORDER BY plugin", [.text(pipeline)]) {
            guard let name = row[0], let text = row[1] else { continue }
            guard let object = (try? JSONParser.parse(text))?.objectValue else {
                throw CalpipeError("\(label): the state of \(name) in plugin_state is not a JSON object (calpipe run --full starts it again)")
            }
            out[name] = PluginState(object)
        }
        return out
    }

    static func save(_ link: PostgresLink, states: [String: PluginState], pipeline: String, runID: Int64) throws {
        let writer = JSONWriter(pretty: false)
        for name in states.keys.sorted() {
            try link.execute("""
                INSERT INTO plugin_state (pipeline, plugin, state, run_id) VALUES ($1, $2, $3, $4)
                ON CONFLICT (pipeline, plugin) DO UPDATE SET state = EXCLUDED.state, run_id = EXCLUDED.run_id
                """, [.text(pipeline), .text(name), .text(writer.string(states[name]!.json)), .integer(runID)])
        }
    }
}
#endif
