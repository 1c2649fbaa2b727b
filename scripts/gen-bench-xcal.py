#!/usr/bin/env python3
"""Deterministic xCal (RFC 6321) benchmark feed for scripts/bench, task (e).

    python3 scripts/gen-bench-xcal.py --out .bench/inputs/bench-xcal.xml                 # ~200 MB
    python3 scripts/gen-bench-xcal.py --out .bench/inputs/quick.xcs --events 20000       # --quick

The events are the very ones scripts/gen-bench-ics.py generates for the same --seed and --events (its
`events()` model), written as xCal: one <vcalendar> with the two VTIMEZONEs, each VEVENT's properties with
their parameters and typed values (<date>, <date-time>, <duration>, <recur> with its parts, <cal-address>,
several <text> values for CATEGORIES). UNTIL is written as text directly inside <until>
(`<until>2026-03-01T23:59:59Z</until>`), as RFC 6321 errata 3315 and RFC 7265's examples read it; RFC 6321
p. 30 names `type-date | type-date-time` there without defining them. Pretty-printed with two-space indentation, UTF-8, LF endings.
"""
import argparse
import importlib.util
import os
import sys
from xml.sax.saxutils import escape

_spec = importlib.util.spec_from_file_location("gen_bench_ics", os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen-bench-ics.py"))
ics = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ics)

# About 1,600 bytes per event: 125,000 events make ~200 MB.
DEFAULT_EVENTS = 125_000


def _time_value(t):
    if t.kind == "date":
        return f"<date>{t.value.strftime('%Y-%m-%d')}</date>"
    s = t.value.strftime("%Y-%m-%dT%H:%M:%S")
    return f"<date-time>{s}Z</date-time>" if t.kind == "utc" else f"<date-time>{s}</date-time>"


def _time_prop(name, t, ind):
    params = ""
    if t.kind == "tz":
        params = f"<parameters><tzid><text>{t.zone}</text></tzid></parameters>"
    return f"{ind}<{name}>{params}{_time_value(t)}</{name}>\n"


def _recur(rule):
    out = [f"<freq>{rule['freq']}</freq>"]
    if "UNTIL" in rule:
        u = rule["UNTIL"]
        if len(u) == 8:
            out.append(f"<until>{u[:4]}-{u[4:6]}-{u[6:8]}</until>")
        else:
            out.append(f"<until>{u[:4]}-{u[4:6]}-{u[6:8]}T{u[9:11]}:{u[11:13]}:{u[13:15]}Z</until>")
    if "COUNT" in rule:
        out.append(f"<count>{rule['COUNT']}</count>")
    if "INTERVAL" in rule:
        out.append(f"<interval>{rule['INTERVAL']}</interval>")
    for d in rule.get("BYDAY", "").split(",") if "BYDAY" in rule else []:
        out.append(f"<byday>{d}</byday>")
    if "BYMONTHDAY" in rule:
        out.append(f"<bymonthday>{rule['BYMONTHDAY']}</bymonthday>")
    if "BYMONTH" in rule:
        out.append(f"<bymonth>{rule['BYMONTH']}</bymonth>")
    if "BYSETPOS" in rule:
        out.append(f"<bysetpos>{rule['BYSETPOS']}</bysetpos>")
    return "<recur>" + "".join(out) + "</recur>"


def xcal_event(e):
    i = "          "
    out = ["      <vevent>\n        <properties>\n",
           f"{i}<uid><text>{escape(e['uid'])}</text></uid>\n",
           f"{i}<dtstamp><date-time>2026-11-01T12:00:00Z</date-time></dtstamp>\n",
           f"{i}<sequence><integer>{e['sequence']}</integer></sequence>\n"]
    if e["recurrence_id"] is not None:
        out.append(_time_prop("recurrence-id", e["recurrence_id"], i))
    out.append(_time_prop("dtstart", e["start"], i))
    if "duration" in e:
        m = e["duration"]
        text = "PT" + (f"{m // 60}H" if m >= 60 else "") + (f"{m % 60}M" if m % 60 else "")
        out.append(f"{i}<duration><duration>{text}</duration></duration>\n")
    else:
        out.append(_time_prop("dtend", e["end"], i))
    if e["rrule"]:
        out.append(f"{i}<rrule>{_recur(e['rrule'])}</rrule>\n")
    for x in e["exdates"]:
        out.append(_time_prop("exdate", ics.Time(e["start"].kind, x, e["start"].zone), i))
    out.append(f"{i}<summary><text>{escape(e['summary'])}</text></summary>\n")
    if e["description"]:
        out.append(f"{i}<description><text>{escape(e['description'])}</text></description>\n")
    if e["location"]:
        out.append(f"{i}<location><text>{escape(e['location'])}</text></location>\n")
    if e["organizer"]:
        name, mail = e["organizer"]
        out.append(f"{i}<organizer><parameters><cn><text>{escape(name)}</text></cn></parameters>"
                   f"<cal-address>mailto:{mail}@example.com</cal-address></organizer>\n")
    for (name, mail), stat in e["attendees"]:
        out.append(f"{i}<attendee><parameters><cn><text>{escape(name)}</text></cn><role><text>REQ-PARTICIPANT</text></role>"
                   f"<partstat><text>{stat}</text></partstat><rsvp><boolean>true</boolean></rsvp></parameters>"
                   f"<cal-address>mailto:{mail}@example.com</cal-address></attendee>\n")
    if e["categories"]:
        out.append(f"{i}<categories>" + "".join(f"<text>{escape(c)}</text>" for c in e["categories"]) + "</categories>\n")
    out.append(f"{i}<status><text>{e['status']}</text></status>\n")
    if e["color"]:
        out.append(f"{i}<color><text>{e['color']}</text></color>\n")
    out.append("        </properties>\n      </vevent>\n")
    return "".join(out)


def _vtimezone(zone):
    lines = ics.VTIMEZONES[zone]
    out = [f"      <vtimezone>\n        <properties><tzid><text>{zone}</text></tzid></properties>\n        <components>\n"]
    sub = None
    for line in lines[2:-1]:
        if line.startswith("BEGIN:"):
            sub = {"kind": line[6:].lower()}
        elif line.startswith("END:"):
            d = sub["DTSTART"]
            rule = dict(x.split("=") for x in sub["RRULE"].split(";"))
            out.append(
                f"          <{sub['kind']}><properties>"
                f"<dtstart><date-time>{d[:4]}-{d[4:6]}-{d[6:8]}T{d[9:11]}:{d[11:13]}:{d[13:15]}</date-time></dtstart>"
                f"<tzoffsetfrom><utc-offset>{sub['TZOFFSETFROM'][:3]}:{sub['TZOFFSETFROM'][3:]}</utc-offset></tzoffsetfrom>"
                f"<tzoffsetto><utc-offset>{sub['TZOFFSETTO'][:3]}:{sub['TZOFFSETTO'][3:]}</utc-offset></tzoffsetto>"
                f"<tzname><text>{sub['TZNAME']}</text></tzname>"
                f"<rrule><recur><freq>{rule['FREQ']}</freq><bymonth>{rule['BYMONTH']}</bymonth><byday>{rule['BYDAY']}</byday></recur></rrule>"
                f"</properties></{sub['kind']}>\n")
        else:
            k, v = line.split(":", 1)
            sub[k] = v
    out.append("        </components>\n      </vtimezone>\n")
    return "".join(out)


def write_xcal(path, seed, count):
    n = 0
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write('<?xml version="1.0" encoding="utf-8"?>\n<icalendar xmlns="urn:ietf:params:xml:ns:icalendar-2.0">\n'
                "  <vcalendar>\n    <properties>\n"
                "      <prodid><text>-//calpipe//gen-bench-xcal.py//EN</text></prodid>\n"
                "      <version><text>2.0</text></version>\n    </properties>\n    <components>\n")
        for z in ics.ZONES:
            f.write(_vtimezone(z))
        buf = []
        for e in ics.events(seed, count):
            buf.append(xcal_event(e))
            n += 1
            if len(buf) >= 2000:
                f.write("".join(buf))
                buf = []
        f.write("".join(buf))
        f.write("    </components>\n  </vcalendar>\n</icalendar>\n")
    return n


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--events", type=int, default=DEFAULT_EVENTS)
    p.add_argument("--seed", type=int, default=ics.SEED)
    a = p.parse_args()
    n = write_xcal(a.out, a.seed, a.events)
    print(f"{a.out}: {n} VEVENTs (seed {a.seed})", file=sys.stderr)


if __name__ == "__main__":
    main()
