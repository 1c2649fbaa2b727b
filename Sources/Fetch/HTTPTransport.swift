import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One GET request over URLSession, waited for synchronously with a hard deadline. It knows nothing about
/// caching or retries: `HTTPFetcher` decides what to send and what an answer means.
final class HTTPTransport: @unchecked Sendable {
    private let session: URLSession
    private let connectTimeout: Double
    private let requestTimeout: Double

    init(settings: HTTPSettings) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        // URLSession's request timeout is an idle timeout: it covers connecting and any silence on the line.
        configuration.timeoutIntervalForRequest = settings.connectTimeout
        configuration.timeoutIntervalForResource = settings.requestTimeout
        configuration.httpMaximumConnectionsPerHost = 1
        session = URLSession(configuration: configuration)
        connectTimeout = settings.connectTimeout
        requestTimeout = settings.requestTimeout
    }

    deinit {
        session.invalidateAndCancel()
    }

    private final class Outcome: @unchecked Sendable {
        var data: Data?
        var file: URL?
        var response: URLResponse?
        var error: Error?
    }

    /// Sends the request and returns the answer, or throws `FetchError.timeout` / `.transport`.
    func get(_ url: URL, headers: [String: String]) throws -> HTTPResponse {
        try exchange(url, headers: headers, toFile: false).response
    }

    /// Like `get`, but the body goes straight to a file (feeds of any size never sit in memory). The answer's
    /// `body` is empty; the file is the caller's to move or delete.
    func download(_ url: URL, headers: [String: String]) throws -> (response: HTTPResponse, file: URL?) {
        try exchange(url, headers: headers, toFile: true)
    }

    private func exchange(_ url: URL, headers: [String: String], toFile: Bool) throws -> (response: HTTPResponse, file: URL?) {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalAndRemoteCacheData, timeoutInterval: connectTimeout)
        request.httpMethod = "GET"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { request.setValue(value, forHTTPHeaderField: name) }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        let task: URLSessionTask
        if toFile {
            task = session.downloadTask(with: request) { location, response, error in
                // The system deletes `location` when this returns: keep the file under a name of our own.
                if let location {
                    let kept = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-download-\(UUID().uuidString)")
                    do {
                        try FileManager.default.moveItem(at: location, to: kept)
                        outcome.file = kept
                    } catch {
                        outcome.error = error
                    }
                }
                outcome.response = response
                if outcome.error == nil { outcome.error = error }
                done.signal()
            }
        } else {
            task = session.dataTask(with: request) { data, response, error in
                outcome.data = data
                outcome.response = response
                outcome.error = error
                done.signal()
            }
        }
        task.resume()
        // The whole-request deadline is enforced here too, whatever the platform's URLSession does.
        if done.wait(timeout: .now() + requestTimeout) == .timedOut {
            task.cancel()
            done.wait()
            if let file = outcome.file { try? FileManager.default.removeItem(at: file) }
            throw FetchError.timeout(url: url.absoluteString, seconds: requestTimeout)
        }
        if let error = outcome.error {
            if let file = outcome.file { try? FileManager.default.removeItem(at: file) }
            let nsError = error as NSError
            if nsError.domain == NSURLErrorDomain, nsError.code == NSURLErrorTimedOut {
                throw FetchError.timeout(url: url.absoluteString, seconds: connectTimeout)
            }
            throw FetchError.transport(url: url.absoluteString, message: Self.describe(nsError))
        }
        guard let http = outcome.response as? HTTPURLResponse else {
            if let file = outcome.file { try? FileManager.default.removeItem(at: file) }
            throw FetchError.transport(url: url.absoluteString, message: "the answer is not HTTP")
        }
        var headerFields: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let name = key as? String, let text = value as? String { headerFields[name.lowercased()] = text }
        }
        let response = HTTPResponse(status: http.statusCode, headers: headerFields, body: outcome.data.map { [UInt8]($0) } ?? [])
        return (response, outcome.file)
    }

    private static func describe(_ error: NSError) -> String {
        switch error.code {
        case NSURLErrorCannotConnectToHost: return "cannot connect to the server"
        case NSURLErrorCannotFindHost: return "unknown host"
        case NSURLErrorNetworkConnectionLost: return "the connection was lost"
        case NSURLErrorNotConnectedToInternet: return "not connected to the network"
        default: return error.localizedDescription
        }
    }
}
