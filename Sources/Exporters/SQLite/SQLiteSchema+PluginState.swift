extension SQLiteSchema {
    /// Version 9 (issue 24, state for plugins; docs/architecture.md, "State for plugins"): `plugin_state`, per pipeline
    /// and plugin name, the JSON object the plugin proposed in the last successful run, written in that run's
    /// transaction.
    static let version9 = """
        CREATE TABLE plugin_state (
            pipeline TEXT NOT NULL,
            plugin TEXT NOT NULL,
            state TEXT NOT NULL,
            run_id INTEGER NOT NULL,
            PRIMARY KEY (pipeline, plugin)
        );
        """
}
