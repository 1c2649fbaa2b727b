#!/usr/bin/env python3
"""recurring-ical-events peer for scripts/bench, task (b): parse with python icalendar, expand [FROM, TO).

    python3 scripts/peers/recurring_expand.py FILE FROM TO [DUMP] [--datetimes]
        -> "events N occurrences M"

FROM and TO are ISO dates handed to `recurring_ical_events.of(cal).between()` as `datetime.date`s (how its
documentation shows a window of days). With --datetimes they are passed as UTC datetimes instead, which is
how the disagreement at the window start was pinned down (docs/benchmarks.md). DUMP receives one line
"UID START_UTC END_UTC" per occurrence (dates and floating times read in UTC, like the other peers).
"""
import calendar
import datetime as dt
import sys

import icalendar
import recurring_ical_events


def utc_seconds(v):
    if isinstance(v, dt.datetime):
        if v.tzinfo is None:
            return calendar.timegm(v.timetuple())
        return int(v.timestamp())
    return calendar.timegm(v.timetuple())


args = [a for a in sys.argv[1:] if not a.startswith("--")]
as_datetimes = "--datetimes" in sys.argv
path, start, end = args[0], dt.date.fromisoformat(args[1]), dt.date.fromisoformat(args[2])
dump = open(args[3], "w") if len(args) > 3 else None
if as_datetimes:
    start = dt.datetime.combine(start, dt.time(), dt.timezone.utc)
    end = dt.datetime.combine(end, dt.time(), dt.timezone.utc)
with open(path, "rb") as f:
    cal = icalendar.Calendar.from_ical(f.read())
events = len(cal.walk("VEVENT"))
n = 0
for occ in recurring_ical_events.of(cal).between(start, end):
    n += 1
    if dump:
        s = occ.get("DTSTART").dt
        e = occ.get("DTEND").dt if occ.get("DTEND") else s
        dump.write(f"{occ.get('UID')} {utc_seconds(s)} {utc_seconds(e)}\n")
if dump:
    dump.close()
print(f"events {events} occurrences {n}")
