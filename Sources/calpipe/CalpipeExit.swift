import ArgumentParser

/// calpipe's exit codes.
enum CalpipeExit: Int32 {
    case done = 0
    case failed = 1
    case usage = 2
    case rejected = 3

    var code: ExitCode { ExitCode(rawValue) }
}
