#!/usr/bin/env python3
"""python-dateutil peer for scripts/bench, task (b): an independent occurrence oracle.

    python3 scripts/peers/dateutil_expand.py FILE FROM TO [DUMP]   -> "events N occurrences M"

A small byte-level reader (unfolding, no other parsing than the few properties expansion needs: UID,
DTSTART, DTEND, DURATION, RRULE, EXDATE, RECURRENCE-ID) feeds `dateutil.rrule.rrulestr` with DTSTART as an
aware datetime in its IANA zone (zoneinfo; the TZIDs of the generated file are IANA names and its
VTIMEZONEs carry the same rules), or naive for dates and floating times, which are read in UTC (the
benchmark pipelines run in UTC). The window rule is calpipe's (RFC 5545 overlap: start < TO and end > FROM;
a zero-length occurrence is in when FROM <= start < TO); ends keep DTEND's exact duration (RFC 5545
3.8.5.3) or DURATION; EXDATEs remove instances; RECURRENCE-ID overrides replace the instance they name.
DUMP receives one line "UID START_UTC END_UTC" per occurrence.
"""
import calendar
import datetime as dt
import re
import sys
from zoneinfo import ZoneInfo

from dateutil.rrule import rrulestr

ZONES = {}
DUR = re.compile(r"^([+-])?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$")
WANTED = (b"UID", b"DTSTART", b"DTEND", b"DURATION", b"RRULE", b"EXDATE", b"RECURRENCE-ID")


def lines(data):
    current = None
    for raw in data.split(b"\n"):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if raw[:1] in (b" ", b"\t"):
            if current is not None:
                current += raw[1:]
            continue
        if current is not None:
            yield current
        current = raw
    if current:
        yield current


def parse_time(params, value):
    """(datetime, is_date): aware for UTC and TZID, naive for dates and floating times."""
    value = value.decode()
    if len(value) == 8:
        return dt.datetime.strptime(value, "%Y%m%d"), True
    if value.endswith("Z"):
        return dt.datetime.strptime(value[:-1], "%Y%m%dT%H%M%S").replace(tzinfo=dt.timezone.utc), False
    t = dt.datetime.strptime(value, "%Y%m%dT%H%M%S")
    tzid = params.get(b"TZID")
    if tzid:
        name = tzid.decode().strip('"')
        zone = ZONES.get(name) or ZONES.setdefault(name, ZoneInfo(name))
        t = t.replace(tzinfo=zone)
    return t, False


def seconds(t):
    return int(t.timestamp()) if t.tzinfo else calendar.timegm(t.timetuple())


def duration_seconds(text):
    m = DUR.match(text.decode())
    sign = -1 if m.group(1) == "-" else 1
    w, d, h, mi, s = (int(x or 0) for x in m.groups()[1:])
    return sign * (((w * 7 + d) * 24 + h) * 3600 + mi * 60 + s)


def main():
    args = sys.argv[1:]
    path = args[0]
    wfrom = calendar.timegm(dt.date.fromisoformat(args[1]).timetuple())
    wto = calendar.timegm(dt.date.fromisoformat(args[2]).timetuple())
    dump = open(args[3], "w") if len(args) > 3 else None
    with open(path, "rb") as f:
        data = f.read()
    events = []
    ev = None
    for line in lines(data):
        if line == b"BEGIN:VEVENT":
            ev = {b"EXDATE": []}
        elif line == b"END:VEVENT":
            events.append(ev)
            ev = None
        elif ev is not None and line.startswith(WANTED):
            head, _, value = line.partition(b":")
            name, *params = head.split(b";")
            if name not in WANTED:
                continue
            p = dict(x.split(b"=", 1) for x in params)
            if name == b"EXDATE":
                ev[b"EXDATE"] += [(p, v) for v in value.split(b",")]
            else:
                ev[name] = (p, value)
    overridden = set()
    for e in events:
        if b"RECURRENCE-ID" in e:
            overridden.add((e[b"UID"][1], seconds(parse_time(*e[b"RECURRENCE-ID"])[0])))
    count = 0

    def take(uid, s, end):
        nonlocal count
        inside = (wfrom <= s < wto) if end <= s else (s < wto and end > wfrom)
        if inside:
            count += 1
            if dump:
                dump.write(f"{uid.decode()} {s} {end}\n")

    for e in events:
        uid = e.get(b"UID", (None, b""))[1]
        start, is_date = parse_time(*e[b"DTSTART"])
        s0 = seconds(start)
        if b"DTEND" in e:
            length = seconds(parse_time(*e[b"DTEND"])[0]) - s0
        elif b"DURATION" in e:
            length = duration_seconds(e[b"DURATION"][1])
        else:
            length = 86400 if is_date else 0
        if b"RECURRENCE-ID" in e or b"RRULE" not in e:
            take(uid, s0, s0 + length)
            continue
        exdates = {seconds(parse_time(p, v)[0]) for p, v in e[b"EXDATE"]}
        rule = rrulestr("RRULE:" + e[b"RRULE"][1].decode(), dtstart=start)
        for t in rule:
            s = seconds(t)
            if s >= wto:
                break
            if s in exdates or (uid, s) in overridden:
                continue
            take(uid, s, s + length)
    if dump:
        dump.close()
    print(f"events {len(events)} occurrences {count}")


main()
