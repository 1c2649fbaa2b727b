import Foundation

/// What `calpipe validate` checks beyond loading: the files a pipeline names, as they are now. Input paths
/// (options of kind "path" of sources and stages) must exist and be readable files (a glob that matches
/// nothing is only a warning: the files may come later); output paths (of sinks) must be writable: no file
/// where a folder should be, no folder where the file should be, and the nearest existing folder writable
/// (missing folders are created by the run). `${VARS}` without defaults are checked by the loader already.
public struct PipelineFileCheck {
    public var errors: [CalpipeError] = []
    public var warnings: [CalpipeError] = []

    /// Checks the pipeline file `file` (already loaded without errors) against the file system.
    /// `overrides`: the `--set` values the loader applied.
    public static func check(file: String, registry: PluginRegistry, environment: [String: String],
                             overrides: [PipelineOverride] = []) -> PipelineFileCheck {
        var result = PipelineFileCheck()
        guard let bytes = try? ChunkReader(path: file).readAll(), var raw = try? JSONParser.parse(bytes: bytes) else { return result }
        for override in overrides { raw = (try? override.apply(to: raw)) ?? raw }
        let diagnostics = ConfigDiagnostics(file: file)
        let json = EnvironmentInterpolation.expand(raw, path: "", environment: environment, diagnostics: diagnostics)
        let base = URL(fileURLWithPath: file).deletingLastPathComponent()
        func resolve(_ path: String) -> String {
            if path.hasPrefix("/") { return path }
            if path.hasPrefix("~/"), let home = environment["HOME"] { return home + path.dropFirst(1) }
            return base.appendingPathComponent(path).standardizedFileURL.path
        }
        for (section, output) in [("sources", false), ("stages", false), ("sinks", true)] {
            guard case .array(let items)? = json.value(atDottedPath: section) else { continue }
            for (index, item) in items.enumerated() {
                guard case .object(let object) = item, case .string(let type)? = object["type"] else { continue }
                let options: [OptionDoc]
                switch section {
                case "sources": options = registry.source(type)?.options ?? []
                case "stages": options = registry.stage(type)?.options ?? []
                default: options = registry.sink(type)?.options ?? []
                }
                for option in options where option.kind == "path" {
                    guard case .string(let written)? = object[option.name], !written.isEmpty, written != "-" else { continue }
                    let at = "\(section)[\(index)].\(option.name)"
                    let resolved = resolve(written)
                    if output {
                        if let problem = writeProblem(resolved, label: written) {
                            result.errors.append(CalpipeError.config(file: file, path: at, "cannot write \"\(written)\": \(problem)"))
                        }
                    } else if resolved.contains(where: { "*?[".contains($0) }) {
                        if InputSpec.glob(resolved).isEmpty {
                            result.warnings.append(CalpipeError.config(file: file, path: at, "no file matches \"\(written)\" (yet)"))
                        }
                    } else if let problem = readProblem(resolved, label: written) {
                        result.errors.append(CalpipeError.config(file: file, path: at, "cannot read \"\(written)\": \(problem)"))
                    }
                }
            }
        }
        return result
    }

    private static func readProblem(_ path: String, label: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 { return FileProblem.readProblem(path: path, label: label, errorNumber: errno) }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { return "it is a folder, not a file" }
        return nil
    }

    private static func writeProblem(_ path: String, label: String) -> String? {
        let absolute = FileProblem.absolutePath(path)
        if let blocking = FileProblem.firstNonFolderAncestor(of: absolute) {
            return "\"\(FileProblem.shown(blocking, of: absolute, label: label))\" is a file, not a folder"
        }
        var info = stat()
        if stat(absolute, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { return "it is a folder, not a file" }
        // The nearest folder that exists must take a new file (or the missing folders on the way).
        var folder = FileProblem.parentFolder(absolute)
        while stat(folder, &info) != 0, folder != "/" { folder = FileProblem.parentFolder(folder) }
        if access(folder, W_OK | X_OK) != 0 {
            let failure = errno
            if failure == EACCES || failure == EPERM {
                return "permission denied (the folder \"\(FileProblem.shown(folder, of: absolute, label: label))\" is not writable)"
            }
            return FileProblem.reason(errorNumber: failure)
        }
        return nil
    }
}
