#!/usr/bin/env python3
"""Expected outputs for the ICS differential test, computed by python `icalendar` (a trusted peer).

For every .ics file in Tests/Fixtures/ics/corpus/ this writes Tests/Fixtures/ics/corpus/expected/<name>.json:
the VEVENTs as python icalendar reads them, each with uid, summary, location, start, end, all_day and rrule.

How it was run (icalendar 7.3.0, tzdata from the system, Python 3.11):
    pip install icalendar==7.3.0
    python3 scripts/ics-oracle.py

Conventions shared with Tests/ICSTests/ICSDifferentialTests.swift (the Swift test reads these files):
- start/end: "YYYY-MM-DD" for dates; "YYYY-MM-DDTHH:MM:SS" + "Z" for UTC, + "+HH:MM" UTC offset for zoned
  times (icalendar resolves the TZID: IANA names, Windows names, the file's own VTIMEZONE), nothing for
  floating times. Google exports: RFC 5545 has no X-WR-TIMEZONE and icalendar ignores it, so this script
  applies it itself (a floating date-time in a calendar with X-WR-TIMEZONE is read in that zone), as the
  issue asks of calpipe.
- end: DTEND; else DTSTART + DURATION (RFC 5545 3.3.6: days and weeks on the wall clock, hours, minutes and
  seconds exactly, via UTC); else the RFC default (a date lasts one day, a date-time zero).
- rrule: the RRULE parts icalendar parsed, written in calpipe's canonical order (FREQ, COUNT/UNTIL, INTERVAL
  when not 1, BYSECOND, BYMINUTE, BYHOUR, BYDAY, BYMONTHDAY, BYYEARDAY, BYWEEKNO, BYMONTH, BYSETPOS, WKST when
  not MO); null without RRULE.
- Events are listed in file order; VTODO, VJOURNAL and VFREEBUSY are not events.
- Folds that split a UTF-8 character: the file is unfolded on bytes before decoding (RFC 5545 3.1 folds
  octets), then handed to icalendar.
"""
import datetime as dt
import json
import os
import re
import sys
import zoneinfo

import icalendar

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "ics", "corpus")


def unfold_bytes(data):
    return re.sub(rb"\r?\n[ \t]", b"", data)


def offset_text(delta):
    seconds = int(delta.total_seconds())
    sign = "-" if seconds < 0 else "+"
    seconds = abs(seconds)
    text = f"{sign}{seconds // 3600:02d}:{seconds // 60 % 60:02d}"
    if seconds % 60:
        text += f":{seconds % 60:02d}"
    return text


def time_text(value):
    if isinstance(value, dt.datetime):
        base = value.strftime("%Y-%m-%dT%H:%M:%S")
        if value.tzinfo is None:
            return base
        off = value.utcoffset()
        if off == dt.timedelta(0) and is_utc(value):
            return base + "Z"
        return base + offset_text(off)
    return value.strftime("%Y-%m-%d")


def is_utc(value):
    tz = value.tzinfo
    return tz is dt.timezone.utc or getattr(tz, "key", None) in ("UTC", "Etc/UTC") or str(tz) in ("UTC", "UTC+00:00")


def add_duration(start, duration):
    """RFC 5545: days nominal (wall clock), the rest exact."""
    days = dt.timedelta(days=duration.days)
    rest = duration - days
    if isinstance(start, dt.datetime):
        value = start + days  # aware datetimes add on the wall clock
        if rest:
            if value.tzinfo is None:
                value = value + rest
            else:
                value = (value.astimezone(dt.timezone.utc) + rest).astimezone(value.tzinfo)
        return value
    return start + duration


def canonical_rrule(rule):
    order = ["BYSECOND", "BYMINUTE", "BYHOUR", "BYDAY", "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYMONTH", "BYSETPOS"]
    parts = ["FREQ=" + rule["FREQ"][0]]
    if "COUNT" in rule:
        parts.append("COUNT=%d" % rule["COUNT"][0])
    if "UNTIL" in rule:
        until = rule["UNTIL"][0]
        if isinstance(until, dt.datetime):
            text = until.strftime("%Y%m%dT%H%M%S") + ("Z" if until.tzinfo is not None else "")
        else:
            text = until.strftime("%Y%m%d")
        parts.append("UNTIL=" + text)
    if "INTERVAL" in rule and rule["INTERVAL"][0] != 1:
        parts.append("INTERVAL=%d" % rule["INTERVAL"][0])
    for key in order:
        if key in rule:
            parts.append(key + "=" + ",".join(str(v) for v in rule[key]))
    if "WKST" in rule and rule["WKST"][0] != "MO":
        parts.append("WKST=" + rule["WKST"][0])
    return ";".join(parts)


def text(component, name):
    value = component.get(name)
    if value is None:
        return None
    if isinstance(value, list):
        value = value[0]
    return str(value)


def events_of(path):
    data = unfold_bytes(open(path, "rb").read())
    out = []
    for calendar in icalendar.Calendar.from_ical(data, multiple=True):
        wr = calendar.get("X-WR-TIMEZONE")
        wr_zone = zoneinfo.ZoneInfo(str(wr)) if wr else None
        for event in calendar.walk("VEVENT"):
            def decoded(name):
                if name not in event:
                    return None
                value = event.decoded(name)
                if isinstance(value, dt.datetime) and value.tzinfo is None and wr_zone is not None:
                    value = value.replace(tzinfo=wr_zone)
                return value
            start = decoded("DTSTART")
            if "DTEND" in event:
                end = decoded("DTEND")
            elif "DURATION" in event:
                end = add_duration(start, event.decoded("DURATION"))
            elif isinstance(start, dt.datetime):
                end = start
            else:
                end = start + dt.timedelta(days=1)
            rrule = event.get("RRULE")
            if isinstance(rrule, list):
                rrule = rrule[0]
            out.append({
                "uid": text(event, "UID"),
                "summary": text(event, "SUMMARY"),
                "location": text(event, "LOCATION"),
                "start": time_text(start),
                "end": time_text(end),
                "all_day": not isinstance(start, dt.datetime),
                "rrule": canonical_rrule(rrule) if rrule is not None else None,
            })
    return out


def main():
    names = sorted(n for n in os.listdir(ROOT) if n.endswith(".ics"))
    os.makedirs(os.path.join(ROOT, "expected"), exist_ok=True)
    for name in names:
        events = events_of(os.path.join(ROOT, name))
        target = os.path.join(ROOT, "expected", name[:-4] + ".json")
        with open(target, "w", encoding="utf-8") as f:
            json.dump({"icalendar": icalendar.__version__, "events": events}, f, ensure_ascii=False, indent=2, sort_keys=True)
            f.write("\n")
        print(f"{name}: {len(events)} events", file=sys.stderr)


if __name__ == "__main__":
    main()
