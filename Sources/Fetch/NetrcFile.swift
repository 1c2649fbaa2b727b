import Foundation

/// A `.netrc` file (the format of ftp, curl and git): `machine HOST login NAME password SECRET`, and a
/// `default` entry for every other host. Tokens are separated by any white space; `macdef` blocks are skipped.
package struct NetrcFile: Sendable {
    package struct Entry: Sendable, Hashable {
        package var login: String?
        package var password: String?

        package init(login: String? = nil, password: String? = nil) {
            self.login = login
            self.password = password
        }
    }

    package private(set) var machines: [String: Entry] = [:]
    package private(set) var fallback: Entry?

    package init(text: String) {
        var tokens: [Substring] = []
        var skippingMacro = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if skippingMacro {
                if line.trimmingCharacters(in: .whitespaces).isEmpty { skippingMacro = false }
                continue
            }
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("#") { continue }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if words.first == "macdef" { skippingMacro = true; continue }
            tokens += words
        }
        var current: (host: String?, entry: Entry)?
        func close() {
            guard let done = current else { return }
            if let host = done.host { if machines[host] == nil { machines[host] = done.entry } } else if fallback == nil { fallback = done.entry }
            current = nil
        }
        var i = 0
        while i < tokens.count {
            let token = tokens[i]
            let value = i + 1 < tokens.count ? String(tokens[i + 1]) : nil
            switch token {
            case "machine":
                close()
                current = (value?.lowercased(), Entry())
                i += 2
            case "default":
                close()
                current = (nil, Entry())
                i += 1
            case "login", "user":
                current?.entry.login = value
                i += 2
            case "password":
                current?.entry.password = value
                i += 2
            case "account":
                i += 2
            default:
                i += 1
            }
        }
        close()
    }

    /// The entry for a host (any case), else the default entry.
    package func entry(for host: String) -> Entry? {
        machines[host.lowercased()] ?? fallback
    }

    /// `$NETRC`, else `~/.netrc`; nil when there is none or it cannot be read.
    package static func load(environment: [String: String]) -> NetrcFile? {
        let path: String
        if let explicit = environment["NETRC"], !explicit.isEmpty {
            path = explicit
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            path = home + "/.netrc"
        }
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return NetrcFile(text: String(decoding: data, as: UTF8.self))
    }
}
