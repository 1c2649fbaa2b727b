import CalSQLite
import Pipeline

/// The plugins' states in the agenda database (`plugin_state`, schema version 9): read and written on the run's
/// connection, inside its transaction.
enum SQLitePluginStates {
    /// The states stored for `pipeline` (empty in a file older than version 9: it has none yet).
    static func load(_ db: Database, pipeline: String, label: String) throws -> [String: PluginState] {
        guard try db.userVersion >= 9 else { return [:] }
        var out: [String: PluginState] = [:]
        for row in try db.rows("SELECT plugin, state FROM plugin_state WHERE pipeline = ? ORDER BY plugin", arguments: [.text(pipeline)]) {
            guard case .text(let name) = row[0], case .text(let text) = row[1] else { continue }
            guard let object = (try? JSONParser.parse(text))?.objectValue else {
                throw CalpipeError.sqlite(label, "the state of \(name) in plugin_state is not a JSON object (calpipe run --full starts it again)")
            }
            out[name] = PluginState(object)
        }
        return out
    }

    /// Stores `states` for `pipeline` (each replaces the plugin's row), as written by run `runID`.
    static func save(_ db: Database, states: [String: PluginState], pipeline: String, runID: Int64) throws {
        let writer = JSONWriter(pretty: false)
        for name in states.keys.sorted() {
            try db.execute("INSERT OR REPLACE INTO plugin_state (pipeline, plugin, state, run_id) VALUES (?, ?, ?, ?)",
                           arguments: [.text(pipeline), .text(name), .text(writer.string(states[name]!.json)), .integer(runID)])
        }
    }
}
