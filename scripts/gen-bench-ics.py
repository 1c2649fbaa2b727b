#!/usr/bin/env python3
"""Deterministic benchmark calendar for scripts/bench (issue 8).

    python3 scripts/gen-bench-ics.py --out .bench/bench-72mb.ics                    # 101,490 VEVENTs, ~72 MB
    python3 scripts/gen-bench-ics.py --out .bench/bench-1gb.ics --events 1430000    # the ~1 GB variant
    python3 scripts/gen-bench-ics.py --out .bench/quick.ics --events 10000          # scripts/bench --quick

The same --seed and --events always give the same bytes (only Python's `random.Random`, no clock, no
locale). The mix follows the issue: one VCALENDAR with two VTIMEZONEs (Europe/Berlin, America/New_York);
about 20% of the series recur (daily, weekly BYDAY, monthly BYMONTHDAY / nth weekday / BYSETPOS, yearly;
COUNT, UNTIL or unbounded; some EXDATEs); some series have RECURRENCE-ID overrides (which count as
VEVENTs); timed events in the two zones and in UTC, all-day and multi-day events, some starting before the
benchmark window (2026-01-01 to 2027-01-01) and reaching into it; UTF-8 text (umlauts, CJK, emoji), escaped
commas/semicolons/newlines, quoted parameters, folded at 75 octets on character boundaries, CRLF endings.

Everything a peer could reasonably read differently is avoided on purpose, so that occurrence counts can be
compared exactly: DTSTARTs match their rules, no local time falls into a DST gap or fold, no zero-length
events, no RDATE. The one deliberate edge is the window start (events that begin before 2026-01-01 and end
inside it), where recurring-ical-events 3.8 is known to drop occurrences.

The event model (`events(seed, count)`) is shared with scripts/gen-bench-xcal.py.
"""
import argparse
import datetime as dt
import random
import sys

SEED = 20261122
DEFAULT_EVENTS = 101_490
WINDOW_FROM = dt.date(2026, 1, 1)
WINDOW_TO = dt.date(2027, 1, 1)
# First day a generated DTSTART may fall on: some events start before the window and reach into it.
EARLIEST = dt.date(2025, 9, 1)
LATEST = dt.date(2026, 12, 31)

ZONES = ["Europe/Berlin", "America/New_York"]

WORDS = [
    "Planning", "Review", "Stand-up", "Sync", "Workshop", "Retro", "Kick-off", "Interview", "Lunch",
    "Budget", "Roadmap", "Design", "Release", "Offsite", "Training", "Demo", "Onboarding", "Audit",
    "Überprüfung", "Besprechung", "Jahresgespräch", "Übergabe", "Café-Runde", "Straßenfest", "Grüße",
    "réunion", "déjeuner", "équipe", "façade", "Ñandú", "señal", "会議", "打ち合わせ", "週次レビュー",
    "회의", "Встреча", "обзор", "συνάντηση", "🎉", "☕", "📅", "🚀", "naïve", "smörgåsbord", "Zürich",
]
PLACES = [
    "Room 1.12", "Raum Ötztal, 3. OG", "Konferenzraum \"Spree\"", "Café Größenwahn; Tisch 4",
    "Salle Molière, 2e étage", "東京オフィス 5F", "Online: https://meet.example.com/abc-defg-hij",
    "Main hall", "Biergarten am See", "Kitchen", "Building 7, Floor 2; desk 42", "Zürich HB, Treffpunkt",
]
PEOPLE = [
    ("Anna Müller", "anna.mueller"), ("Jürgen Groß", "juergen.gross"), ("Zoë Ångström", "zoe.angstrom"),
    ("François Dupont", "francois.dupont"), ("José Núñez", "jose.nunez"), ("Søren Kierkegaard", "soren.k"),
    ("山田 太郎", "taro.yamada"), ("Ivan Petrov", "ivan.petrov"), ("Doe, John", "john.doe"),
    ("Chloé O'Brien", "chloe.obrien"), ("Łukasz Żółć", "lukasz.zolc"), ("Ava Smith", "ava.smith"),
]
CATEGORIES = ["Work", "Team", "Personal", "Travel", "Bürozeit", "Kunde", "Holiday", "Focus"]
STATUSES = ["CONFIRMED", "CONFIRMED", "CONFIRMED", "TENTATIVE"]
COLORS = ["steelblue", "tomato", "seagreen", "gold", "orchid", None, None, None]
DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]


class Time:
    """A DTSTART/DTEND value: kind 'date' (all-day), 'utc' or 'tz' (local time in `zone`)."""
    __slots__ = ("kind", "value", "zone")

    def __init__(self, kind, value, zone=None):
        self.kind, self.value, self.zone = kind, value, zone

    def text(self):
        if self.kind == "date":
            return self.value.strftime("%Y%m%d")
        s = self.value.strftime("%Y%m%dT%H%M%S")
        return s + "Z" if self.kind == "utc" else s


def _text(rnd, lo, hi):
    return " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(lo, hi)))


def _description(rnd):
    parts = [_text(rnd, 4, 10) + "." for _ in range(rnd.randint(1, 3))]
    if rnd.random() < 0.5:
        parts.insert(1, "Agenda:\n1) " + _text(rnd, 2, 4) + ", 2) " + _text(rnd, 2, 4) + "; 3) Fragen\\Antworten")
    return "\n".join(parts)


def _local_time(rnd):
    # 07:00-20:45 local: never inside a DST gap or fold of either zone.
    return dt.time(rnd.randint(7, 20), rnd.choice([0, 0, 15, 30, 45]))


def _start(rnd, date, timed_kind):
    if timed_kind == "utc":
        return Time("utc", dt.datetime.combine(date, _local_time(rnd)))
    return Time("tz", dt.datetime.combine(date, _local_time(rnd)), timed_kind)


def _pick_zone(rnd):
    r = rnd.random()
    return "Europe/Berlin" if r < 0.5 else ("America/New_York" if r < 0.8 else "utc")


def _nth_weekday(year, month, weekday, n):
    """The nth (1-based, or -1 for last) given weekday of a month."""
    if n > 0:
        d = dt.date(year, month, 1)
        d += dt.timedelta(days=(weekday - d.weekday()) % 7)
        return d + dt.timedelta(weeks=n - 1)
    nxt = dt.date(year + (month == 12), month % 12 + 1, 1)
    d = nxt - dt.timedelta(days=1)
    return d - dt.timedelta(days=(d.weekday() - weekday) % 7)


def _last_weekday_of_month(year, month):
    nxt = dt.date(year + (month == 12), month % 12 + 1, 1)
    d = nxt - dt.timedelta(days=1)
    while d.weekday() > 4:
        d -= dt.timedelta(days=1)
    return d


def _random_date(rnd, lo=EARLIEST, hi=LATEST):
    return lo + dt.timedelta(days=rnd.randint(0, (hi - lo).days))


def _common(rnd, uid):
    e = {
        "uid": uid,
        "summary": _text(rnd, 2, 5),
        "description": _description(rnd) if rnd.random() < 0.85 else None,
        "location": rnd.choice(PLACES) if rnd.random() < 0.7 else None,
        "organizer": None,
        "attendees": [],
        "categories": rnd.sample(CATEGORIES, rnd.randint(1, 2)) if rnd.random() < 0.6 else [],
        "status": rnd.choice(STATUSES),
        "color": rnd.choice(COLORS),
        "sequence": rnd.randint(0, 3),
        "rrule": None,
        "exdates": [],
        "recurrence_id": None,
    }
    if rnd.random() < 0.6:
        people = rnd.sample(PEOPLE, rnd.randint(2, 5))
        e["organizer"] = people[0]
        e["attendees"] = [(p, rnd.choice(["ACCEPTED", "TENTATIVE", "NEEDS-ACTION", "DECLINED"])) for p in people]
    return e


def _single(rnd, uid):
    e = _common(rnd, uid)
    r = rnd.random()
    date = _random_date(rnd)
    if r < 0.15:  # all-day, 1-4 days
        e["start"] = Time("date", date)
        e["end"] = Time("date", date + dt.timedelta(days=rnd.choice([1, 1, 1, 2, 3, 4])))
    elif r < 0.20:  # multi-day timed: overnight (ends 00:30) or a 2-3 day conference
        kind = _pick_zone(rnd)
        start = _start(rnd, date, kind)
        if rnd.random() < 0.5:
            start.value = dt.datetime.combine(date, dt.time(rnd.choice([21, 22, 23]), 0))
            end_value = dt.datetime.combine(date + dt.timedelta(days=1), dt.time(0, 30))
        else:
            end_value = dt.datetime.combine(date + dt.timedelta(days=rnd.randint(1, 2)), dt.time(17, 0))
        e["start"] = start
        e["end"] = Time(start.kind, end_value, start.zone)
    else:  # timed, 15 min to 3 h
        kind = _pick_zone(rnd)
        start = _start(rnd, date, kind)
        minutes = rnd.choice([15, 30, 30, 45, 60, 60, 60, 90, 120, 180])
        e["start"] = start
        if rnd.random() < 0.3:
            e["duration"] = minutes
        else:
            e["end"] = Time(start.kind, start.value + dt.timedelta(minutes=minutes), start.zone)
    return e


def _rule_text(rule):
    parts = ["FREQ=" + rule["freq"]]
    for key in ("INTERVAL", "BYDAY", "BYMONTHDAY", "BYMONTH", "BYSETPOS", "COUNT", "UNTIL"):
        if key in rule:
            parts.append(key + "=" + rule[key])
    return ";".join(parts)


def _recurring(rnd, uid):
    """A series and the instance starts it produces (for EXDATE and RECURRENCE-ID choices)."""
    e = _common(rnd, uid)
    r = rnd.random()
    if r < 0.12:  # yearly all-day (birthdays, anniversaries)
        date = _random_date(rnd, dt.date(2015, 1, 1), dt.date(2026, 12, 31))
        date = date.replace(day=min(date.day, 28))
        e["start"] = Time("date", date)
        e["end"] = Time("date", date + dt.timedelta(days=1))
        rule = {"freq": "YEARLY"}
    else:
        kind = _pick_zone(rnd)
        date = _random_date(rnd, EARLIEST, dt.date(2026, 11, 30))
        if r < 0.30:  # daily
            rule = {"freq": "DAILY"}
            if rnd.random() < 0.3:
                rule["INTERVAL"] = str(rnd.choice([2, 3]))
            rule["COUNT"] = str(rnd.randint(5, 40))
        elif r < 0.80:  # weekly on one to three weekdays
            days = sorted(rnd.sample(range(5), rnd.choice([1, 2, 2, 3, 3])))
            rule = {"freq": "WEEKLY", "BYDAY": ",".join(DAYS[d] for d in days)}
            if rnd.random() < 0.25:
                rule["INTERVAL"] = "2"
            while date.weekday() != days[0]:
                date += dt.timedelta(days=1)
        elif r < 0.86:  # monthly on a day of the month
            rule = {"freq": "MONTHLY", "BYMONTHDAY": str(rnd.randint(1, 28))}
            date = date.replace(day=int(rule["BYMONTHDAY"]))
        elif r < 0.94:  # monthly nth weekday
            n = rnd.choice([1, 2, 3, 4, -1])
            wd = rnd.randint(0, 4)
            rule = {"freq": "MONTHLY", "BYDAY": f"{n}{DAYS[wd]}"}
            date = _nth_weekday(date.year, date.month, wd, n)
        else:  # monthly, last working day (BYSETPOS)
            rule = {"freq": "MONTHLY", "BYDAY": "MO,TU,WE,TH,FR", "BYSETPOS": "-1"}
            date = _last_weekday_of_month(date.year, date.month)
        start = _start(rnd, date, kind)
        minutes = rnd.choice([15, 30, 30, 60, 60, 90])
        e["start"] = start
        if rnd.random() < 0.3:
            e["duration"] = minutes
        else:
            e["end"] = Time(start.kind, start.value + dt.timedelta(minutes=minutes), start.zone)
        if rule["freq"] != "DAILY":
            b = rnd.random()
            if b < 0.2:
                rule["COUNT"] = str(rnd.randint(4, 52))
            elif b < 0.4:
                until = date + dt.timedelta(days=rnd.randint(30, 400))
                # UNTIL in UTC for zoned and UTC starts (RFC 5545 3.3.10), at 23:59:59 so it never meets an instance.
                rule["UNTIL"] = until.strftime("%Y%m%d") + "T235959Z"
            # else: unbounded
    if e["start"].kind == "date" and rnd.random() < 0.3:
        rule["UNTIL"] = (e["start"].value.replace(year=e["start"].value.year + rnd.randint(3, 12))).strftime("%Y%m%d")
    e["rrule"] = rule
    return e


def _instances(e, limit):
    """The first `limit` instance starts of a generated series (enough for EXDATE/override picks)."""
    rule = e["rrule"]
    s = e["start"].value
    out = []
    interval = int(rule.get("INTERVAL", "1"))
    count = int(rule["COUNT"]) if "COUNT" in rule else None
    n = min(limit, count) if count else limit
    if rule["freq"] == "YEARLY":
        out = [s.replace(year=s.year + i) for i in range(n)]
    elif rule["freq"] == "DAILY":
        out = [s + dt.timedelta(days=i * interval) for i in range(n)]
    elif rule["freq"] == "WEEKLY":
        days = [DAYS.index(d) for d in rule["BYDAY"].split(",")]
        week0 = s - dt.timedelta(days=s.weekday())
        w = 0
        while len(out) < n:
            for d in days:
                c = week0 + dt.timedelta(weeks=w * interval, days=d)
                if c >= s and len(out) < n:
                    out.append(c)
            w += 1
    elif "BYMONTHDAY" in rule:
        out = [_add_months(s, i) for i in range(n)]
    else:  # nth weekday / BYSETPOS: only the first instance is computed exactly; enough for picks
        out = [s]
    if "UNTIL" in rule:
        # Strictly before UNTIL's day: a New York evening is already the next day in UTC.
        until = dt.datetime.strptime(rule["UNTIL"][:8], "%Y%m%d")
        out = [x for x in out if (x if isinstance(x, dt.datetime) else dt.datetime.combine(x, dt.time())) < until]
    return out


def _add_months(value, k):
    m = value.month - 1 + k
    return value.replace(year=value.year + m // 12, month=m % 12 + 1)


def events(seed=SEED, count=DEFAULT_EVENTS):
    """Yields exactly `count` VEVENT dicts (series masters, their overrides right after them, singles)."""
    rnd = random.Random(seed)
    emitted = 0
    i = 0
    while emitted < count:
        i += 1
        uid = f"bench-{seed}-{i:08d}@calpipe.example"
        if rnd.random() < 0.20:
            e = _recurring(rnd, uid)
            insts = _instances(e, 6)
            if e["rrule"]["freq"] in ("DAILY", "WEEKLY") or "BYMONTHDAY" in e["rrule"] or e["rrule"]["freq"] == "YEARLY":
                if rnd.random() < 0.1 and len(insts) > 2:
                    e["exdates"] = [insts[rnd.randint(1, len(insts) - 1)]]
                yield e
                emitted += 1
                if rnd.random() < 0.15 and len(insts) > 2:
                    picks = [x for x in rnd.sample(insts[1:], min(2, len(insts) - 1)) if x not in e["exdates"]]
                    for rid in sorted(picks)[: count - emitted]:
                        o = _common(rnd, uid)
                        o["summary"] = e["summary"] + " (moved)"
                        o["sequence"] = e["sequence"] + 1
                        o["recurrence_id"] = Time(e["start"].kind, rid, e["start"].zone)
                        shift = dt.timedelta(hours=1) if e["start"].kind != "date" else dt.timedelta(days=1)
                        o["start"] = Time(e["start"].kind, rid + shift, e["start"].zone)
                        if "duration" in e:
                            o["duration"] = e["duration"]
                        else:
                            length = e["end"].value - e["start"].value
                            o["end"] = Time(e["start"].kind, rid + shift + length, e["start"].zone)
                        yield o
                        emitted += 1
            else:
                yield e
                emitted += 1
        else:
            yield _single(rnd, uid)
            emitted += 1


# ---------------------------------------------------------------------------------------------- ICS text

def escape_text(s):
    return s.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def fold(line):
    """Folds at 75 octets, never inside a UTF-8 character; CRLF endings."""
    b = line.encode("utf-8")
    if len(b) <= 75:
        return line + "\r\n"
    out = []
    chunk = ""
    size = 0
    limit = 75
    for ch in line:
        n = len(ch.encode("utf-8"))
        if size + n > limit:
            out.append(chunk)
            chunk, size, limit = "", 0, 74
        chunk += ch
        size += n
    out.append(chunk)
    return "\r\n ".join(out) + "\r\n"


def _time_prop(name, t):
    if t.kind == "date":
        return f"{name};VALUE=DATE:{t.text()}"
    if t.kind == "tz":
        return f"{name};TZID={t.zone}:{t.text()}"
    return f"{name}:{t.text()}"


def _quote(v):
    return '"' + v + '"' if any(c in v for c in ",;:") else v


def ics_event(e):
    lines = ["BEGIN:VEVENT", "UID:" + e["uid"], "DTSTAMP:20261101T120000Z", f"SEQUENCE:{e['sequence']}"]
    if e["recurrence_id"] is not None:
        lines.append(_time_prop("RECURRENCE-ID", e["recurrence_id"]))
    lines.append(_time_prop("DTSTART", e["start"]))
    if "duration" in e:
        m = e["duration"]
        lines.append("DURATION:PT" + (f"{m // 60}H" if m >= 60 else "") + (f"{m % 60}M" if m % 60 else ""))
    else:
        lines.append(_time_prop("DTEND", e["end"]))
    if e["rrule"]:
        lines.append("RRULE:" + _rule_text(e["rrule"]))
    for x in e["exdates"]:
        lines.append(_time_prop("EXDATE", Time(e["start"].kind, x, e["start"].zone)))
    lines.append("SUMMARY:" + escape_text(e["summary"]))
    if e["description"]:
        lines.append("DESCRIPTION:" + escape_text(e["description"]))
    if e["location"]:
        lines.append("LOCATION:" + escape_text(e["location"]))
    if e["organizer"]:
        name, mail = e["organizer"]
        lines.append(f"ORGANIZER;CN={_quote(name)}:mailto:{mail}@example.com")
    for (name, mail), stat in e["attendees"]:
        lines.append(f"ATTENDEE;CN={_quote(name)};ROLE=REQ-PARTICIPANT;PARTSTAT={stat};RSVP=TRUE:mailto:{mail}@example.com")
    if e["categories"]:
        lines.append("CATEGORIES:" + ",".join(escape_text(c) for c in e["categories"]))
    lines.append("STATUS:" + e["status"])
    if e["color"]:
        lines.append("COLOR:" + e["color"])
    lines.append("END:VEVENT")
    return "".join(fold(l) for l in lines)


VTIMEZONES = {
    "Europe/Berlin": [
        "BEGIN:VTIMEZONE", "TZID:Europe/Berlin",
        "BEGIN:DAYLIGHT", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "TZNAME:CEST",
        "DTSTART:19700329T020000", "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "END:DAYLIGHT",
        "BEGIN:STANDARD", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "TZNAME:CET",
        "DTSTART:19701025T030000", "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "END:STANDARD",
        "END:VTIMEZONE",
    ],
    "America/New_York": [
        "BEGIN:VTIMEZONE", "TZID:America/New_York",
        "BEGIN:DAYLIGHT", "TZOFFSETFROM:-0500", "TZOFFSETTO:-0400", "TZNAME:EDT",
        "DTSTART:20070311T020000", "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU", "END:DAYLIGHT",
        "BEGIN:STANDARD", "TZOFFSETFROM:-0400", "TZOFFSETTO:-0500", "TZNAME:EST",
        "DTSTART:20071104T020000", "RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU", "END:STANDARD",
        "END:VTIMEZONE",
    ],
}


def write_ics(path, seed, count):
    n = 0
    with open(path, "w", encoding="utf-8", newline="") as f:
        head = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calpipe//gen-bench-ics.py//EN", "CALSCALE:GREGORIAN",
                "X-WR-CALNAME:Benchmark Ünïcödé calendar"]
        for z in ZONES:
            head += VTIMEZONES[z]
        f.write("".join(fold(l) for l in head))
        buf = []
        for e in events(seed, count):
            buf.append(ics_event(e))
            n += 1
            if len(buf) >= 2000:
                f.write("".join(buf))
                buf = []
        f.write("".join(buf))
        f.write("END:VCALENDAR\r\n")
    return n


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--events", type=int, default=DEFAULT_EVENTS, help="number of VEVENTs (overrides included)")
    p.add_argument("--seed", type=int, default=SEED)
    a = p.parse_args()
    n = write_ics(a.out, a.seed, a.events)
    print(f"{a.out}: {n} VEVENTs (seed {a.seed})", file=sys.stderr)


if __name__ == "__main__":
    main()
