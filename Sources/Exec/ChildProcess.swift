#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Pipeline

/// One running program of an `exec` plugin, started with `posix_spawn`: its own process group, the environment
/// and working folder its `ExecCommand` gives (nothing inherited), its standard input a socket (so that writing to
/// a program that has gone answers EPIPE instead of raising SIGPIPE in calpipe), its output and errors pipes.
///
/// `ChildProcess` owns the three descriptors and the process: `close()` closes them, and `deinit` makes sure the
/// program is gone (killed and reaped) if nothing waited for it. All reading and writing goes through
/// `ProcessPump`, one `poll` loop over the three descriptors, so a program that writes much before it reads
/// (or the other way round) never deadlocks against calpipe, and memory stays bounded by the lines in flight.
final class ChildProcess {
    let command: ExecCommand
    let pid: pid_t
    /// Standard input (write side), -1 once closed or when the program reads /dev/null.
    private(set) var input: Int32
    private(set) var output: Int32
    private(set) var errors: Int32
    /// Set once `waitpid` reaped the program.
    private(set) var exit: ExecExit?

    private init(command: ExecCommand, pid: pid_t, input: Int32, output: Int32, errors: Int32) {
        self.command = command
        self.pid = pid
        self.input = input
        self.output = output
        self.errors = errors
    }

    /// Starts the program. `withInput: false` gives it /dev/null as standard input.
    static func start(_ command: ExecCommand, withInput: Bool) throws(CalpipeError) -> ChildProcess {
        // Socket pairs, made close-on-exec in the same call: another run's program started at this moment by
        // another thread cannot inherit them (and hold our program's output open).
        var inputPair: [Int32] = [-1, -1]
        var outputPipe: [Int32] = [-1, -1]
        var errorPipe: [Int32] = [-1, -1]
        func closeAll() { for fd in inputPair + outputPipe + errorPipe where fd >= 0 { _ = Glibc.close(fd) } }
        let streamType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        // [0] is calpipe's end, [1] the program's.
        guard !withInput || socketpair(AF_UNIX, streamType, 0, &inputPair) == 0,
              socketpair(AF_UNIX, streamType, 0, &outputPipe) == 0,
              socketpair(AF_UNIX, streamType, 0, &errorPipe) == 0 else {
            let reason = String(cString: strerror(errno))
            closeAll()
            throw command.failure("cannot make its input and output (\(reason))")
        }

        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        guard posix_spawn_file_actions_init(&actions) == 0 else { closeAll(); throw command.failure("cannot prepare to start it") }
        defer { posix_spawn_file_actions_destroy(&actions) }
        guard posix_spawnattr_init(&attributes) == 0 else { closeAll(); throw command.failure("cannot prepare to start it") }
        defer { posix_spawnattr_destroy(&attributes) }

        var steps: [Int32] = []
        if withInput {
            steps.append(posix_spawn_file_actions_adddup2(&actions, inputPair[1], 0))
        } else {
            steps.append(posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0))
        }
        steps.append(posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1))
        steps.append(posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2))
        guard let changeDirectory = Self.addChangeDirectory else {
            closeAll()
            throw command.failure("cannot be started in another folder on this system (no posix_spawn_file_actions_addchdir_np)")
        }
        steps.append(changeDirectory(&actions, command.directory))
        // Its own process group (a Ctrl-C at the terminal reaches calpipe, which stops the program and its
        // children together), default signal handling and no blocked signals, whatever calpipe's are.
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        steps.append(posix_spawnattr_setsigmask(&attributes, &none))
        steps.append(posix_spawnattr_setsigdefault(&attributes, &all))
        steps.append(posix_spawnattr_setpgroup(&attributes, 0))
        steps.append(posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP)))
        if let failed = steps.first(where: { $0 != 0 }) {
            closeAll()
            throw command.failure("cannot prepare to start it (\(String(cString: strerror(failed))))")
        }

        let argv = ([command.executable] + command.arguments).map { strdup($0) } + [nil]
        let envp = command.environment.sorted { $0.key < $1.key }.map { strdup($0.key + "=" + $0.value) } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        let rc = argv.withUnsafeBufferPointer { a in
            envp.withUnsafeBufferPointer { e in
                posix_spawn(&pid, command.executable, &actions, &attributes,
                            UnsafeMutablePointer(mutating: a.baseAddress!), UnsafeMutablePointer(mutating: e.baseAddress!))
            }
        }
        // The child's ends are the child's alone now.
        for fd in [inputPair[1], outputPipe[1], errorPipe[1]] where fd >= 0 { _ = Glibc.close(fd) }
        guard rc == 0 else {
            for fd in [inputPair[0], outputPipe[0], errorPipe[0]] where fd >= 0 { _ = Glibc.close(fd) }
            throw command.failure("cannot start it (\(String(cString: strerror(rc))))")
        }
        for fd in [inputPair[0], outputPipe[0], errorPipe[0]] where fd >= 0 {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        return ChildProcess(command: command, pid: pid, input: inputPair[0], output: outputPipe[0], errors: errorPipe[0])
    }

    /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29 and later), which Swift's Glibc module does not
    /// declare: looked up once by name, called through a C function pointer.
    private static let addChangeDirectory: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32).self)
    }()

    /// Closes standard input: the program reads end of file.
    func closeInput() {
        if input >= 0 { _ = Glibc.close(input); input = -1 }
    }

    func closeOutput() {
        if output >= 0 { _ = Glibc.close(output); output = -1 }
    }

    func closeErrors() {
        if errors >= 0 { _ = Glibc.close(errors); errors = -1 }
    }

    /// Reaps the program if it has ended; `nil` while it runs.
    @discardableResult
    func poll() -> ExecExit? {
        if let exit { return exit }
        var status: Int32 = 0
        var rc: pid_t
        repeat { rc = waitpid(pid, &status, WNOHANG) } while rc < 0 && errno == EINTR
        guard rc == pid else { return nil }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, spelled out (the C macros do not reach Swift).
        let signal = status & 0x7f
        exit = signal == 0 ? .status(Int((status >> 8) & 0xff)) : .signal(Int(signal))
        return exit
    }

    /// Stops the program and everything it started: SIGTERM to its process group, SIGKILL after `grace` seconds.
    func stop(grace: Double = 1) {
        guard poll() == nil else { return }
        _ = kill(-pid, SIGTERM)
        let deadline = MonotonicClock.now + grace
        while poll() == nil, MonotonicClock.now < deadline { usleep(10_000) }
        if poll() == nil {
            _ = kill(-pid, SIGKILL)
            while poll() == nil { usleep(5_000) }
        }
    }

    deinit {
        closeInput()
        closeOutput()
        closeErrors()
        stop(grace: 0.2)
    }
}

/// How a program ended.
enum ExecExit: Equatable, CustomStringConvertible {
    case status(Int)
    case signal(Int)

    var succeeded: Bool { self == .status(0) }

    var description: String {
        switch self {
        case .status(let code): return "exited with status \(code)"
        case .signal(let number): return "was killed by signal \(number)"
        }
    }
}

/// Seconds on a clock that only goes forward, for deadlines.
enum MonotonicClock {
    static var now: Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
