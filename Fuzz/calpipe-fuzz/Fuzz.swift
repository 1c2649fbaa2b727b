// libFuzzer entry points for calpipe's readers (built only by scripts/fuzz: `CALPIPE_FUZZ=1 swift build
// --sanitize=fuzzer --sanitize=address`; libFuzzer brings its own main). One binary, one target per run, chosen
// by CALPIPE_FUZZ_TARGET:
//
//   ics                          the iCalendar reader on the input's bytes, then expand and split over a
//                                two-week window (so rules, zones and durations of fuzzed events are used too)
//   xcal, jcal, json, xml        the source reads the input as a file, then the same stages
//   rrule                        the input is an RRULE value: parsed, then expanded over two years (at most
//                                2,000 starts) in Europe/Berlin and in UTC
//   pipeline                     the input is a pipeline file: parsed and loaded with every plugin (not run)
//   ics-dump                     not a fuzz target: what the iCalendar reader makes of each input file, as
//                                normalised lines for scripts/fuzz-diff (see Harness+Dump.swift)
//
// The stages run without a runner and the readers without worker threads: per input only what depends on
// the input is done (a thread started per input, a runner's stamp and plans, cost more than reading it).
// Bad input must give errors, rejections or warnings: a trap (overflow, index out of range, force unwrap),
// a memory error (AddressSanitizer) or a hang (libFuzzer's -timeout) is a finding.

private let harness = Harness()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    harness.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
