#!/bin/sh
# Memory and time of the xCal and jCal readers and writers on a ~200 MB generated feed.
#
#   swift build -c release --product calpipe
#   scripts/bench-xml.sh [work-dir]        # default work dir: .bench/xml
#
# Generates the feed with scripts/gen-bench-xcal.py (125,000 events, ~200 MB) unless it exists, then runs
# xcal -> (nothing, --dry-run), xcal -> jcal and jcal -> xcal with /usr/bin/time and prints, per run, the
# events read, the wall time and the peak resident set size. The goal: peak RSS under 150 MB.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-"$root/.bench/xml"}
calpipe="$root/.build/release/calpipe"
mkdir -p "$work"
[ -x "$calpipe" ] || { echo "build first: swift build -c release --product calpipe" >&2; exit 1; }
[ -f "$work/feed.xml" ] || python3 "$root/scripts/gen-bench-xcal.py" --out "$work/feed.xml"

pipeline() {  # name source-type source-file sink-type sink-file
    printf '{"name": "%s", "timezone": "UTC", "sources": [{"type": "%s", "path": "%s"}], "stages": [], "sinks": [{"type": "%s", "path": "%s"}]}\n' \
        "$1" "$2" "$3" "$4" "$5" > "$work/$1.json"
}
pipeline xcal-read xcal feed.xml ics unused.ics
pipeline xcal-to-jcal xcal feed.xml jcal feed.jcal
pipeline jcal-to-xcal jcal feed.jcal xcal again.xml

run() {  # name [--dry-run]
    /usr/bin/time -f "%e %M" -o "$work/$1.time" "$calpipe" run "$work/$1.json" --quiet ${2:-}
    set -- "$1" $(cat "$work/$1.time")
    printf '%-14s %8s s wall  %8.1f MB peak RSS\n' "$1" "$2" "$(echo "$3 / 1024" | bc -l)"
}
printf 'input: %s (%s bytes)\n' "$work/feed.xml" "$(wc -c < "$work/feed.xml")"
run xcal-read --dry-run
run xcal-to-jcal
run jcal-to-xcal
