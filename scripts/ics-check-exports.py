#!/usr/bin/env python3
"""Checks calpipe's exported ICS with python `icalendar` (a trusted peer).

Tests/Fixtures/ics/exported/<name>.ics is what calpipe writes for Tests/Fixtures/ics/corpus/<name>.ics
(ICSExportTests asserts the bytes are identical; `CALPIPE_UPDATE_FIXTURES=1 swift test --filter ICSExportTests`
rewrites them). This script parses every exported file with icalendar and compares what it reads with the
expected outputs of the source file (scripts/ics-oracle.py): same uid, summary, location, start, end,
all-day and rrule for every event. Any parse error or difference fails the run (exit 1).

How it was run (icalendar 7.3.0):
    pip install icalendar==7.3.0
    python3 scripts/ics-check-exports.py
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
oracle = __import__("ics-oracle")

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "ics")


def main():
    failures = 0
    names = sorted(n for n in os.listdir(os.path.join(FIXTURES, "exported")) if n.endswith(".ics"))
    for name in names:
        try:
            got = oracle.events_of(os.path.join(FIXTURES, "exported", name))
        except Exception as error:  # noqa: BLE001 - any failure to parse is what we look for
            print(f"{name}: icalendar cannot read it: {error}")
            failures += 1
            continue
        with open(os.path.join(FIXTURES, "corpus", "expected", name[:-4] + ".json"), encoding="utf-8") as f:
            want = json.load(f)["events"]
        key = lambda e: (e["uid"], e["start"])
        if sorted(got, key=key) != sorted(want, key=key):
            print(f"{name}: differs\n  got  {sorted(got, key=key)}\n  want {sorted(want, key=key)}")
            failures += 1
        else:
            print(f"{name}: ok ({len(got)} events)")
    print(f"{len(names)} files, {failures} failures")
    return 1 if failures or len(names) < 20 else 0


if __name__ == "__main__":
    sys.exit(main())
