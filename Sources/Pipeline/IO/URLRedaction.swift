import Foundation

/// URLs as they may be shown: in rows (`events.source`), logs, errors, cache keys and the summary. A password
/// written into the URL (`https://user:secret@host/`) and the values of token-like query parameters
/// (`?token=...`) become `***`; the rest stays as written, so the user recognises the address.
package enum URLRedaction {
    /// Query parameter names (any case) whose values are secrets.
    package static let secretParameters: Set<String> = [
        "token", "access_token", "auth", "auth_token", "key", "apikey", "api_key", "sig", "signature", "password", "passwd",
        "secret", "client_secret", "private_token", "x-amz-signature", "x-amz-credential", "x-amz-security-token",
    ]

    package static let mask = "***"

    /// The URL with its user information's password and secret query values replaced by `***`.
    /// A URL without secrets comes back unchanged (the same characters).
    package static func redact(_ url: String) -> String {
        guard url.contains("@") || url.contains("?") else { return url }
        var text = url
        // user:password@ (only in the authority: between "//" and the first "/", "?" or "#").
        if let schemeEnd = text.range(of: "://") {
            let authorityStart = schemeEnd.upperBound
            let authorityEnd = text[authorityStart...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? text.endIndex
            let authority = text[authorityStart..<authorityEnd]
            if let at = authority.lastIndex(of: "@") {
                let userInfo = authority[..<at]
                let user = userInfo.firstIndex(of: ":").map { userInfo[..<$0] } ?? userInfo
                let shown = userInfo.contains(":") ? String(user) + ":" + mask : String(user)
                text.replaceSubrange(authorityStart..<at, with: shown)
            }
        }
        guard let question = text.firstIndex(of: "?") else { return text }
        let queryStart = text.index(after: question)
        let queryEnd = text[queryStart...].firstIndex(of: "#") ?? text.endIndex
        let pairs = text[queryStart..<queryEnd].split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let eq = pair.firstIndex(of: "=") else { return String(pair) }
            let name = pair[..<eq]
            let decoded = (String(name).removingPercentEncoding ?? String(name)).lowercased()
            return isSecret(decoded) ? String(name) + "=" + mask : String(pair)
        }
        text.replaceSubrange(queryStart..<queryEnd, with: pairs.joined(separator: "&"))
        return text
    }

    /// True for a query parameter name that carries a secret.
    package static func isSecret(_ name: String) -> Bool {
        secretParameters.contains(name.lowercased())
    }

    /// Replaces every occurrence of the given secrets (credentials the user configured) in a text: a last
    /// line of defence for messages that quote a server's answer.
    package static func scrub(_ text: String, secrets: [String]) -> String {
        var out = text
        for secret in secrets where secret.count >= 4 { out = out.replacingOccurrences(of: secret, with: mask) }
        return out
    }
}
