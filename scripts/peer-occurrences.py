#!/usr/bin/env python3
"""The occurrences python `icalendar` and `recurring-ical-events` read from an iCalendar file, as JSON: the
expected output of tests that compare calpipe's expand stage with the peers (ICSPublishedFeedTests).

    pip install icalendar==7.3.2 recurring-ical-events==3.8.2
    scripts/peer-occurrences.py --from 2026-01-01 --to 2027-01-01 FILE.ics > expected.json
    scripts/peer-occurrences.py --one-calendar ...   # read every VCALENDAR of the file as one (calpipe reads
                                                     # a file as one feed; the peers read each calendar alone)

Each occurrence: [UID, start, end] with date-times as UTC ("2026-03-03T17:00:00Z") and dates as dates,
sorted by start, then UID. A test tool, not a dependency: CI runs the committed output.
"""
import argparse
import datetime
import json
import sys

import icalendar
import recurring_ical_events


def text(value):
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            return value.strftime("%Y-%m-%dT%H:%M:%S")
        return value.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return value.isoformat()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--from", dest="start", required=True)
    parser.add_argument("--to", dest="end", required=True)
    parser.add_argument("--one-calendar", action="store_true")
    parser.add_argument("file")
    args = parser.parse_args()
    data = open(args.file, "rb").read()
    if args.one_calendar:
        lines = data.split(b"\r\n")
        body = [l for l in lines if l not in (b"BEGIN:VCALENDAR", b"END:VCALENDAR")]
        data = b"\r\n".join([b"BEGIN:VCALENDAR"] + [l for l in body if l] + [b"END:VCALENDAR", b""])
    start = datetime.date.fromisoformat(args.start)
    end = datetime.date.fromisoformat(args.end)
    out = []
    for calendar in icalendar.Calendar.from_ical(data, multiple=True):
        for o in recurring_ical_events.of(calendar).between(start, end):
            s = o["DTSTART"].dt
            e = o["DTEND"].dt if "DTEND" in o else s
            out.append([str(o["UID"]), text(s), text(e)])
    out.sort(key=lambda x: (x[1], x[0]))
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
