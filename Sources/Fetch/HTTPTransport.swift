import Foundation
import CalHash
import Pipeline
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request over URLSession, waited for synchronously: the answer must start within the connect timeout
/// and be complete within the request timeout. Bodies are streamed (to a file, or to memory), with their
/// length and SHA-256 computed on the way. It knows nothing about caching or retries: `HTTPFetcher` decides
/// what to send and what an answer means.
///
/// A session delegate sees every task: a 401 with `WWW-Authenticate` becomes an answer at once (URLSession on
/// Linux would otherwise wait for credentials until the timeout), and a redirect to another host drops the
/// request's credential headers.
final class HTTPTransport: Sendable {
    private let session: URLSession
    private let delegate: TransportDelegate
    private let connectTimeout: Double
    private let requestTimeout: Double

    init(settings: HTTPSettings) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCredentialStorage = nil
        // URLSession's request timeout is an idle timeout; the connect timeout is enforced by `send`.
        // Both a little longer than ours, so that the message says which of ours struck.
        configuration.timeoutIntervalForRequest = max(settings.connectTimeout, settings.requestTimeout) + 1
        configuration.timeoutIntervalForResource = settings.requestTimeout + 1
        configuration.httpMaximumConnectionsPerHost = 1
        delegate = TransportDelegate()
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        connectTimeout = settings.connectTimeout
        requestTimeout = settings.requestTimeout
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// What came back: the answer (its `body` empty when it went to `file`), and the body's length and digest.
    struct Exchange {
        var response: HTTPResponse
        var file: URL?
        var length: Int64
        var sha256: String
    }

    /// Sends the request. `toFile`: a 2xx body is streamed to a new temporary file (the caller's to move or
    /// delete); error bodies stay in memory (their first 64 KiB). `sensitiveHeaders`: dropped on a redirect
    /// to another origin. `bodyFile`: the request body, streamed from this file. `label`: the URL as messages show it. Throws `FetchError.connectTimeout`, `.timeout`
    /// or `.transport`; `.interrupted` when `isCancelled` turns true while it waits (checked every 0.1 s: a run
    /// stopped by a signal or its task does not wait out a slow server).
    func send(_ request: URLRequest, bodyFile: URL? = nil, toFile: Bool, sensitiveHeaders: Set<String>, label: String,
              isCancelled: (@Sendable () -> Bool)? = nil) throws -> Exchange {
        let state = TaskState(toFile: toFile, sensitiveHeaders: Set(sensitiveHeaders.map { $0.lowercased() }))
        let task = bodyFile.map { session.uploadTask(with: request, fromFile: $0) } ?? session.dataTask(with: request)
        delegate.register(task, state)
        defer { delegate.unregister(task) }
        let started = ProcessInfo.processInfo.systemUptime
        task.resume()
        func abandon(_ error: FetchError) -> FetchError {
            task.cancel()
            state.done.wait()
            state.discardFile()
            return error
        }
        switch Self.wait(for: state.answerStarted, seconds: connectTimeout, isCancelled: isCancelled) {
        case .signalled: break
        case .timedOut: throw abandon(.connectTimeout(url: label, seconds: connectTimeout))
        case .cancelled: throw abandon(.interrupted(url: label))
        }
        let left = max(0, requestTimeout - (ProcessInfo.processInfo.systemUptime - started))
        switch Self.wait(for: state.done, seconds: left, isCancelled: isCancelled) {
        case .signalled: break
        case .timedOut: throw abandon(.timeout(url: label, seconds: requestTimeout))
        case .cancelled: throw abandon(.interrupted(url: label))
        }
        return try state.finish(label: label)
    }

    private enum Waited { case signalled, timedOut, cancelled }

    /// Waits for `semaphore` at most `seconds`, asking `isCancelled` every 0.1 s.
    private static func wait(for semaphore: DispatchSemaphore, seconds: Double, isCancelled: (@Sendable () -> Bool)?) -> Waited {
        let deadline = DispatchTime.now() + seconds
        guard let isCancelled else { return semaphore.wait(timeout: deadline) == .success ? .signalled : .timedOut }
        while true {
            if isCancelled() { return .cancelled }
            let slice = min(deadline, .now() + 0.1)
            if semaphore.wait(timeout: slice) == .success { return .signalled }
            if slice >= deadline { return .timedOut }
        }
    }

    static func describe(_ error: NSError) -> String {
        switch error.code {
        case NSURLErrorCannotConnectToHost: return "cannot connect to the server"
        case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: return "unknown host"
        case NSURLErrorNetworkConnectionLost: return "the connection was lost"
        case NSURLErrorNotConnectedToInternet: return "not connected to the network"
        case NSURLErrorTimedOut: return "the server stopped answering"
        case NSURLErrorHTTPTooManyRedirects: return "too many redirects"
        case NSURLErrorSecureConnectionFailed, NSURLErrorServerCertificateUntrusted, NSURLErrorServerCertificateHasBadDate,
             NSURLErrorServerCertificateNotYetValid, NSURLErrorServerCertificateHasUnknownRoot:
            return "the secure connection failed (certificate or TLS problem)"
        default: return "network error \(error.code)"
        }
    }

    /// True for failures that mean the server was never reached (retrying at once rarely helps).
    static func isConnectFailure(_ error: NSError) -> Bool {
        [NSURLErrorCannotConnectToHost, NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed, NSURLErrorNotConnectedToInternet].contains(error.code)
    }
}

/// The state of one task, filled by the delegate's callbacks (on the session's queue), read by `send`.
private final class TaskState: Sendable {
    let toFile: Bool
    let sensitiveHeaders: Set<String>
    let answerStarted = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)

    private struct Progress {
        var response: HTTPURLResponse?
        var challengeResponse: HTTPURLResponse?
        var data: [UInt8] = []
        var file: URL?
        var handle: FileHandle?
        var hasher = SHA256()
        var length: Int64 = 0
        var error: Error?
        var writeError: Error?
        var startedSignalled = false
    }

    private let progress = Locked(Progress())

    init(toFile: Bool, sensitiveHeaders: Set<String>) {
        self.toFile = toFile
        self.sensitiveHeaders = sensitiveHeaders
    }

    private func signalStarted() {
        let first = progress.withLock { state -> Bool in
            defer { state.startedSignalled = true }
            return !state.startedSignalled
        }
        if first { answerStarted.signal() }
    }

    func received(_ response: URLResponse) {
        let toFile = toFile
        progress.withLock { state in
            state.response = response as? HTTPURLResponse
            if toFile, let http = state.response, (200..<300).contains(http.statusCode) {
                let target = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-download-\(UUID().uuidString)")
                if FileManager.default.createFile(atPath: target.path, contents: nil), let opened = try? FileHandle(forWritingTo: target) {
                    state.file = target
                    state.handle = opened
                } else {
                    state.writeError = CocoaError(.fileWriteUnknown)
                }
            }
        }
        signalStarted()
    }

    func received(_ chunk: Data) {
        progress.withLock { state in
            chunk.withUnsafeBytes { state.hasher.update(buffer: $0) }
            state.length += Int64(chunk.count)
            if let handle = state.handle {
                do { try handle.write(contentsOf: chunk) } catch { state.writeError = error }
            } else if state.file == nil {
                let isError = state.response.map { !(200..<300).contains($0.statusCode) } ?? false
                if !isError || state.data.count < 65_536 { state.data.append(contentsOf: chunk) }
            }
        }
    }

    func challenged(_ response: URLResponse?) {
        progress.withLock { $0.challengeResponse = response as? HTTPURLResponse }
    }

    func completed(_ error: Error?) {
        progress.withLock { state in
            state.error = error
            try? state.handle?.close()
            state.handle = nil
        }
        signalStarted()
        done.signal()
    }

    func discardFile() {
        progress.withLock { state in
            if let file = state.file { try? FileManager.default.removeItem(at: file) }
            state.file = nil
        }
    }

    func finish(label: String) throws -> HTTPTransport.Exchange {
        try progress.withLock { state in
            func headers(_ http: HTTPURLResponse) -> [String: String] {
                var out: [String: String] = [:]
                for (key, value) in http.allHeaderFields {
                    if let name = key as? String, let text = value as? String { out[name.lowercased()] = text }
                }
                return out
            }
            func dropFile() {
                if let file = state.file { try? FileManager.default.removeItem(at: file) }
            }
            if let challenge = state.challengeResponse, state.response == nil || state.error != nil {
                // A 401/407 the session wanted credentials for: the answer is the status itself.
                dropFile()
                return .init(response: HTTPResponse(status: challenge.statusCode, headers: headers(challenge)), file: nil, length: 0, sha256: SHA256.hex(of: []))
            }
            if let error = state.error {
                dropFile()
                let nsError = error as NSError
                throw FetchError.transport(url: label, message: HTTPTransport.describe(nsError), connectFailure: HTTPTransport.isConnectFailure(nsError))
            }
            if let writeError = state.writeError {
                dropFile()
                throw FetchError.transport(url: label, message: "cannot store the download (\(CalpipeError(writeError).message))", connectFailure: false)
            }
            guard let http = state.response else {
                dropFile()
                throw FetchError.transport(url: label, message: "the answer is not HTTP", connectFailure: false)
            }
            var digest = state.hasher
            return .init(response: HTTPResponse(status: http.statusCode, headers: headers(http), body: state.data), file: state.file,
                         length: state.length, sha256: digest.finishHex())
        }
    }
}

/// The session's delegate: routes callbacks to the task's state.
private final class TransportDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let states = Locked<[Int: TaskState]>([:])

    func register(_ task: URLSessionTask, _ state: TaskState) {
        states.withLock { $0[task.taskIdentifier] = state }
    }

    func unregister(_ task: URLSessionTask) {
        states.withLock { $0[task.taskIdentifier] = nil }
    }

    private func state(_ task: URLSessionTask) -> TaskState? {
        states.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        state(dataTask)?.received(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state(dataTask)?.received(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        state(task)?.completed(error)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        // Credentials are sent up front by the fetcher; a challenge means they were missing or refused.
        state(task)?.challenged(challenge.failureResponse)
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        var next = request
        let from = task.originalRequest?.url
        let to = request.url
        let sameOrigin = from?.scheme?.lowercased() == to?.scheme?.lowercased() && from?.host?.lowercased() == to?.host?.lowercased() && from?.port == to?.port
        if !sameOrigin, let sensitive = state(task)?.sensitiveHeaders {
            for name in next.allHTTPHeaderFields?.keys.map({ $0 }) ?? [] where sensitive.contains(name.lowercased()) {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        completionHandler(next)
    }
}
