// CalpipeKit: calpipe as a library. `import CalpipeKit` gives the model, the plugin protocols, the registry
// with every standard plugin (`PluginRegistry.standard`), the loader and the runner; docs/architecture.md
// shows a pipeline run from code and a custom source and sink.
@_exported import Pipeline
// The HTTP client (with its cache and per-host turns) for plugins that talk to servers: docs/architecture.md, "HTTP for plugins".
@_exported import Fetch
