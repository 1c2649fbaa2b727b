import Foundation

/// Why a file cannot be read or written, in words a person can act on: "no such file", "\"out\" is a file, not
/// a folder", "permission denied (the folder \"out\" is not writable)", "the disk is full". Messages name the
/// path as the user wrote it (`label`) and are built as `"<label>: cannot read: <reason>"` or
/// `"<label>: cannot write: <reason>"`; no Foundation or C library text reaches the user.
public enum FileProblem {
    /// A plain reason for an `errno` value.
    public static func reason(errorNumber: Int32) -> String {
        switch errorNumber {
        case ENOENT: return "no such file"
        case ENOTDIR: return "a part of the path is a file, not a folder"
        case EISDIR: return "it is a folder, not a file"
        case EACCES, EPERM: return "permission denied"
        case ENOSPC: return "the disk is full"
        case EDQUOT: return "the disk quota is used up"
        case EROFS: return "the file system is read-only"
        case EFBIG: return "the file is too large for this file system or for the process's file size limit"
        case ENAMETOOLONG: return "the path is too long"
        case ELOOP: return "too many symbolic links (a link loop?)"
        case EMFILE, ENFILE: return "too many open files"
        case EIO: return "input/output error (a failing disk or a lost network mount?)"
        case EXDEV: return "the temporary file and the target are on different file systems"
        case ETXTBSY: return "the file is busy"
        case ENXIO, ENODEV: return "no such device"
        case EAGAIN, EINTR: return "the system was busy (try again)"
        case ENOMEM: return "out of memory"
        default: return "unexpected system error (errno \(errorNumber))"
        }
    }

    /// Why `path` cannot be read, after a call on it failed with `errorNumber` (nil: look at the path again).
    /// `label` is the path as written, used to name a folder on the way.
    public static func readProblem(path: String, label: String? = nil, errorNumber: Int32? = nil) -> String {
        var info = stat()
        if stat(path, &info) == 0 {
            if (info.st_mode & S_IFMT) == S_IFDIR { return "it is a folder, not a file" }
            if let errorNumber { return reason(errorNumber: errorNumber) }
            if access(path, R_OK) != 0 { return reason(errorNumber: errno) }
            return "it could not be read"
        }
        let failure = errno
        if failure == ENOTDIR, let blocking = firstNonFolderAncestor(of: path) {
            return "\"\(shown(blocking, of: absolutePath(path), label: label))\" is a file, not a folder"
        }
        return reason(errorNumber: failure)
    }

    /// Why a file cannot be created or replaced at `path`, after a call failed with `errorNumber`. Looks at the
    /// folders on the way (a file where a folder should be, a missing folder), the target itself (a folder) and
    /// the folder's permissions. `label` is the path as written, used to name the folder in the way.
    public static func writeProblem(path: String, label: String? = nil, errorNumber: Int32) -> String {
        let absolute = absolutePath(path)
        if let blocking = firstNonFolderAncestor(of: absolute) {
            return "\"\(shown(blocking, of: absolute, label: label))\" is a file, not a folder"
        }
        let folder = parentFolder(absolute)
        var info = stat()
        if stat(folder, &info) != 0 {
            return "the folder \"\(shown(folder, of: absolute, label: label))\" does not exist"
        }
        if stat(absolute, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { return "it is a folder, not a file" }
        switch errorNumber {
        case EACCES, EPERM:
            if access(folder, W_OK | X_OK) != 0 {
                return "permission denied (the folder \"\(shown(folder, of: absolute, label: label))\" is not writable)"
            }
            return "permission denied"
        default:
            return reason(errorNumber: errorNumber)
        }
    }

    /// `path` for messages: relative to the current folder when it lies inside it, else as it is.
    public static func display(_ path: String) -> String {
        let absolute = absolutePath(path)
        let cwd = FileManager.default.currentDirectoryPath
        if absolute.hasPrefix(cwd + "/") { return String(absolute.dropFirst(cwd.count + 1)) }
        return path
    }

    /// Syncs the folder holding `path`, so a rename into it survives a power loss. Best effort.
    static func syncFolder(of path: String) {
        let fd = open(parentFolder(absolutePath(path)), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    // MARK: Paths

    package static func absolutePath(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: full).standardizedFileURL.path
    }

    static func parentFolder(_ absolute: String) -> String {
        guard let slash = absolute.lastIndex(of: "/") else { return "." }
        return slash == absolute.startIndex ? "/" : String(absolute[..<slash])
    }

    /// The first folder on the way to `path` (from the root down, the file itself excluded) that exists but
    /// is not a folder.
    static func firstNonFolderAncestor(of path: String) -> String? {
        let absolute = absolutePath(path)
        var prefix = ""
        let parts = absolute.split(separator: "/", omittingEmptySubsequences: true)
        for part in parts.dropLast() {
            prefix += "/" + part
            var info = stat()
            if stat(prefix, &info) != 0 { return nil }
            if (info.st_mode & S_IFMT) != S_IFDIR { return prefix }
        }
        return nil
    }

    /// A folder on the way to `absolute`, named as the user wrote it: the same number of trailing components cut
    /// from `label` when the label reaches that far (`"out"` for a label `out/agenda.json`), else a path
    /// relative to the current folder (or absolute).
    static func shown(_ ancestor: String, of absolute: String, label: String?) -> String {
        let cut = absolute.split(separator: "/").count - ancestor.split(separator: "/").count
        if let label, label != "-", cut > 0 {
            var parts = label.split(separator: "/", omittingEmptySubsequences: true)
            if parts.count > cut, !parts.suffix(cut).contains(where: { $0 == ".." || $0 == "." }) {
                parts.removeLast(cut)
                return (label.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
            }
        }
        return display(ancestor)
    }
}
