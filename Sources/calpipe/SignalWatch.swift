import Dispatch
import Foundation
import Pipeline

/// Turns SIGINT and SIGTERM into a cancellation the runner sees between batches, so sinks roll back
/// (temporary files removed, transactions rolled back) instead of dying mid-write. A second signal kills.
final class SignalWatch {
    private var sources: [DispatchSourceSignal] = []

    init(cancellation: Cancellation) {
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if cancellation.cancelledReason != nil {
                    signal(number, SIG_DFL)
                    kill(getpid(), number)
                }
                cancellation.cancel(reason: name)
            }
            source.resume()
            sources.append(source)
        }
    }

    func stop() {
        for source in sources { source.cancel() }
        sources.removeAll()
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
