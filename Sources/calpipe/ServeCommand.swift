import ArgumentParser
import Foundation
import Pipeline
#if Server
import Serve
#endif

/// `calpipe serve`: declared in every build (so help, completions and the man page are the same), run only in
/// a build with the `Server` trait; another build says how to make one.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run pipelines on their refresh intervals and serve their outputs over HTTP.",
        discussion: """
            Each pipeline runs at once and then every `serve.refresh` of its file (else --refresh). Its ics, json \
            and html sinks' files are served at /NAME.ics, /NAME.json and /NAME.html (NAME: the pipeline's name), \
            with ETag, Last-Modified, 304 answers and gzip; a pipeline with a sqlite sink also answers \
            /NAME/days?from=A&to=B (or ?day=today&days=7) with the days document. Each pipeline needs \
            "serve": {"token": "..."} (asked as ?token= or Authorization: Bearer) or "public": true. When a run \
            fails, the last good outputs stay served with X-Calpipe-Age. /healthz and /metrics (Prometheus) too. \
            SIGTERM or SIGINT stops it cleanly (exit 0). Needs a build with the Server trait: \
            swift build --traits Server (docs/publishing.md).

            Example:
              calpipe serve pipelines/team.json --listen 127.0.0.1:8080
            """
    )

    @Argument(help: "The pipeline files.")
    var pipelines: [String]

    @Option(help: ArgumentHelp("Where to listen: PORT (on 127.0.0.1), HOST:PORT or [IPv6]:PORT; port 0: any free port.", valueName: "address"))
    var listen = "127.0.0.1:8080"

    @Option(help: ArgumentHelp("Run a pipeline without serve.refresh this often: 30s, 15m, 1h.", valueName: "interval"))
    var refresh = "15m"

    /// The line a build without the Server trait answers with.
    static let unavailable = "calpipe serve: this calpipe was built without the server; build it with: swift build --traits Server"

    /// HOST and PORT of `--listen`.
    static func address(_ text: String) -> (host: String, port: Int)? {
        var host = "127.0.0.1", portText = text
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = String(rest.dropFirst())
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = String(text[text.index(after: colon)...])
        }
        guard !host.isEmpty, let port = Int(portText), (0...65_535).contains(port) else { return nil }
        return (host, port)
    }

    func validate() throws {
        if pipelines.isEmpty { throw ValidationError("expected at least one pipeline file") }
        if Self.address(listen) == nil {
            throw ValidationError("--listen: invalid address \"\(listen)\" (expected PORT, HOST:PORT or [IPv6]:PORT, such as 127.0.0.1:8080)")
        }
        guard let seconds = DurationOption.seconds(refresh), seconds >= 1 else {
            throw ValidationError("--refresh: invalid interval \"\(refresh)\" (expected at least one second: a number with s, m, h or d, such as 15m)")
        }
        _ = seconds
    }

    func run() throws {
        #if Server
        let (host, port) = Self.address(listen)!
        let options = ServeOptions(pipelineFiles: pipelines, host: host, port: port, defaultRefresh: DurationOption.seconds(refresh)!,
                                   environment: ProcessInfo.processInfo.environment)
        final class Outcome: @unchecked Sendable { var error: Error? }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                try await CalpipeServer.run(options) { Terminal.error("calpipe serve: " + $0) }
            } catch {
                outcome.error = error
            }
            done.signal()
        }
        done.wait()
        if let error = outcome.error { throw error }
        #else
        Terminal.error(Self.unavailable)
        throw ExitCode(ExitStatus.usage)
        #endif
    }
}
