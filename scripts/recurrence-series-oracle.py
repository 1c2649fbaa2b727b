#!/usr/bin/env python3
"""Expected occurrences for the end-to-end expand test, from python `recurring-ical-events` (with `icalendar`).

How it was run (from the repository root; recurring-ical-events 3.8.2, icalendar 7.3.0):

    python3 scripts/recurrence-series-oracle.py Tests/Fixtures/recurrence/series 2026-10-15 2026-11-10 \
        > Tests/Fixtures/recurrence/series-expected.txt

It reads every .ics file of the folder (in name order) into one calendar, as calpipe's expand stage sees one
source whose files hold a series and its RECURRENCE-ID overrides in any order, expands the window
[FROM, TO) (dates in Europe/Berlin, the test pipeline's zone) and prints one line per occurrence:

    UID | START | END | SUMMARY | LOCATION

START and END in ISO 8601 as written in the event's zone (dates as YYYY-MM-DD, UTC times with "Z"), sorted
by start instant and UID. Cancelled occurrences (STATUS:CANCELLED) are left out, as the expand stage does by default.
"""
import datetime as dt
import os
import sys
from zoneinfo import ZoneInfo

import icalendar
import recurring_ical_events

folder, start, end = sys.argv[1], dt.date.fromisoformat(sys.argv[2]), dt.date.fromisoformat(sys.argv[3])
zone = ZoneInfo("Europe/Berlin")
merged = icalendar.Calendar()
for name in sorted(os.listdir(folder)):
    if name.endswith(".ics"):
        with open(os.path.join(folder, name), "rb") as f:
            for component in icalendar.Calendar.from_ical(f.read()).walk("VEVENT"):
                merged.add_component(component)

def iso(t):
    if isinstance(t, dt.datetime) and t.utcoffset() == dt.timedelta(0) and str(t.tzinfo) in ("UTC", "UTC+00:00"):
        return t.replace(tzinfo=None).isoformat() + "Z"
    return t.isoformat()


window_from = dt.datetime.combine(start, dt.time(0), zone)
window_to = dt.datetime.combine(end, dt.time(0), zone)
rows = []
for event in recurring_ical_events.of(merged).between(window_from, window_to):
    if str(event.get("STATUS", "")).upper() == "CANCELLED":
        continue
    s, e = event["DTSTART"].dt, event["DTEND"].dt
    if isinstance(s, dt.datetime):
        key = s.timestamp()
    else:
        key = dt.datetime.combine(s, dt.time(0), zone).timestamp()
    rows.append((key, str(event["UID"]), " | ".join([str(event["UID"]), iso(s), iso(e),
                                                        str(event.get("SUMMARY", "")), str(event.get("LOCATION", ""))])))
for _, _, line in sorted(rows):
    print(line)
