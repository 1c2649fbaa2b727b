#!/usr/bin/env python3
"""Generates the differential RRULE fixtures for Tests/RecurrenceTests from python-dateutil.

How it was run (from the repository root):

    python3 scripts/rrule-oracle.py --cases 2400 --seed 5545 > Tests/Fixtures/recurrence/dateutil-rrules.jsonl

with python-dateutil 2.9.0.post0. The output depends only on --seed and --cases, so anyone can widen it:

    python3 scripts/rrule-oracle.py --cases 10000 --seed 7 > /tmp/more.jsonl

and point RRULE_ORACLE_FIXTURE at the file when running `swift test --filter DateutilDifferentialTests`.

What it writes: one JSON object per line. The first line describes the run. Every other line is a case:

    {"s": DTSTART "YYYYMMDDTHHMMSS" (floating), "r": RRULE text, "f": window start, "t": window end
     (exclusive; both floating "YYYYMMDDTHHMMSS"), "m": 1 when dateutil's first instance is DTSTART itself,
     "n": number of instances of a COUNT rule (0 otherwise), "l": last instance of a COUNT rule (or ""),
     "o": the instances in [f, t) as deltas in seconds: the first from f, each next one from the previous}

The rules are random but cover every part: FREQ SECONDLY..YEARLY, INTERVAL, COUNT, UNTIL (date-time and, for
midnight DTSTARTs, date), WKST, BYSECOND, BYMINUTE, BYHOUR, BYDAY (plain and with ordinals), BYMONTHDAY
(negative too), BYYEARDAY, BYWEEKNO, BYMONTH, BYSETPOS; DTSTARTs on leap days and in leap years, and
far-past DTSTARTs (back to 1900) with windows in the 2020s so the engine's jump-ahead and COUNT counting from
DTSTART are exercised.

Left out on purpose, because dateutil deviates from RFC 5545 there and the engine follows the RFC:
- BYDAY mixing plain days and ordinals ("MO,2FR"): dateutil intersects them, the RFC unions them.
- DTSTART itself: dateutil omits a DTSTART that does not match the rule; the RFC always counts it. The cases
  keep it out (the test expands with includeStart: false) and the test checks the RFC behaviour separately
  from "m", "n" and "l".
- WEEKLY rules with BYSETPOS: dateutil's first weekly period starts at DTSTART rather than at the start of
  its week (WKST), so BYSETPOS counts positions in a partial first week. The engine takes the whole week, as
  RFC 5545 defines the set, then drops instances before DTSTART. Such rules here start on their WKST day.
- BYWEEKNO around the turn of the year. On the days before week 1 of a year (they belong to the previous
  year's last week), when the previous year's week 1 started late, dateutil counts that last week with this
  year's length (its `lnumweeks`): it calls 2022-01-01 and 2022-01-02 week 53 of 2021 where ISO 8601 and
  RFC 5545 say 52. And the last days of a year that belong to week 1 of the next year never match the
  negative number of that week (-52 or -53; dateutil's own TODO). Cases where either changes a BYWEEKNO
  match are dropped (`dateutil_misnumbers_weeks`).
- FREQ=YEARLY with BYWEEKNO and no BYDAY, BYMONTH, BYMONTHDAY or BYYEARDAY: dateutil gives the whole week, the RFC
  (what the rule does not say comes from DTSTART), libical and ical.js give DTSTART's weekday of that week,
  and so does calpipe. Such cases are kept: dateutil is asked for the rule with BYDAY=<DTSTART's weekday>
  added (`oracle_rule`); the "r" field holds the rule as written.
A rule dateutil refuses ("byxxx generates an empty set") is dropped. dateutil walks a rule that matches
nothing more on to year 9999; the script stops its walk after the year following the window (the month
following it for sub-daily rules; a hook on dateutil's per-month `_iterinfo.rebuild`), so every case is
quick (2,400 cases take seconds) and the output depends only on --seed and --cases. A 20-second alarm stays
as a safety net and reports on stderr if it ever fires. Beyond the committed 2,400 cases, seeds 1, 2 and 3
with 4,000 cases each were run against the engine with no difference.
"""

import argparse
import calendar
import datetime as dt
import json
import random
import signal
import sys

import dateutil
import dateutil.rrule
from dateutil.rrule import rrulestr

FREQS = ["SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY"]
DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
# How long a window is, per frequency, and how far before DTSTART rules may start.
SPAN = {"SECONDLY": dt.timedelta(hours=2), "MINUTELY": dt.timedelta(days=2), "HOURLY": dt.timedelta(days=20),
        "DAILY": dt.timedelta(days=200), "WEEKLY": dt.timedelta(days=800), "MONTHLY": dt.timedelta(days=2500),
        "YEARLY": dt.timedelta(days=12000)}
MAX_INSTANCES = 60


def fmt(t):
    return t.strftime("%Y%m%dT%H%M%S")


def sample(rng, values, low, high):
    return sorted(rng.sample(values, rng.randint(low, min(high, len(values)))))


def ints(values):
    return ",".join(str(v) for v in values)


def signed(rng, low, high, count):
    """`count` distinct non-zero values in [-high, -low] U [low, high]."""
    pool = list(range(low, high + 1)) + list(range(-high, -low + 1))
    return sorted(rng.sample(pool, count))


def make_rule(rng):
    freq = rng.choices(FREQS, weights=[4, 6, 8, 20, 20, 22, 20])[0]
    parts = ["FREQ=" + freq]
    if rng.random() < 0.35:
        parts.append("INTERVAL=%d" % rng.choice([2, 2, 3, 4, 5, 7, 12, 18]))
    sub_daily = freq in ("SECONDLY", "MINUTELY", "HOURLY")
    # Stacking many day parts makes rules that almost never match; keep most rules to two or fewer.
    budget = rng.choice([1, 2, 2, 2, 3, 4])
    # BY* parts, each with its own chance; the mix is what matters.
    # SECONDLY rules get no BYMONTH/BYMONTHDAY: dateutil would step through every second of the months they
    # leave out (HOURLY and MINUTELY rules cover those parts on sub-daily frequencies).
    secondly = freq == "SECONDLY"
    if rng.random() < 0.3 and not secondly:
        parts.append("BYMONTH=" + ints(sample(rng, list(range(1, 13)), 1, 4)))
    if rng.random() < 0.12 and not sub_daily and len(parts) <= budget:
        parts.append("BYWEEKNO=" + ints(signed(rng, 1, 53, rng.randint(1, 3)) if rng.random() < 0.3
                                        else sample(rng, list(range(1, 54)), 1, 4)))
    if rng.random() < 0.12 and not sub_daily and len(parts) <= budget:
        parts.append("BYYEARDAY=" + ints(signed(rng, 1, 366, rng.randint(1, 4)) if rng.random() < 0.5
                                         else sample(rng, list(range(1, 367)), 1, 5)))
    if rng.random() < 0.3 and len(parts) <= budget and not secondly:
        md = signed(rng, 1, 31, rng.randint(1, 4)) if rng.random() < 0.4 else sample(rng, list(range(1, 32)), 1, 5)
        parts.append("BYMONTHDAY=" + ints(md))
    if rng.random() < 0.45 and len(parts) <= budget + 1:
        if freq in ("MONTHLY", "YEARLY") and rng.random() < 0.45:
            top = 5 if freq == "MONTHLY" or "BYMONTH=" in ";".join(parts) else 53
            entries = []
            for day in sample(rng, DAYS, 1, 3):
                n = rng.randint(1, top) * rng.choice([1, -1])
                entries.append("%d%s" % (n, day))
            parts.append("BYDAY=" + ",".join(entries))
        else:
            parts.append("BYDAY=" + ",".join(sample(rng, DAYS, 1, 5)))
    if rng.random() < (0.4 if sub_daily else 0.2):
        parts.append("BYHOUR=" + ints(sample(rng, list(range(24)), 1, 6)))
    if rng.random() < (0.4 if sub_daily else 0.15):
        parts.append("BYMINUTE=" + ints(sample(rng, list(range(60)), 1, 6)))
    if rng.random() < (0.3 if freq in ("SECONDLY", "MINUTELY") else 0.1):
        parts.append("BYSECOND=" + ints(sample(rng, list(range(60)), 1, 4)))
    if rng.random() < 0.2:
        # A sub-daily period holds only its BYMINUTE x BYSECOND (HOURLY) or BYSECOND (MINUTELY) instances;
        # positions beyond them never match and dateutil would step through every period until the walk limit.
        counts = {p.split("=")[0]: len(p.split("=")[1].split(",")) for p in parts}
        size = {"HOURLY": counts.get("BYMINUTE", 1) * counts.get("BYSECOND", 1), "MINUTELY": counts.get("BYSECOND", 1),
                "SECONDLY": 1}.get(freq, 6)
        if size > 1 or not sub_daily:
            parts.append("BYSETPOS=" + ints(signed(rng, 1, min(6, size), min(size, rng.randint(1, 2)))))
    if rng.random() < 0.3:
        parts.append("WKST=" + rng.choice(DAYS))
    return freq, parts


def make_start(rng, freq, timed):
    kind = rng.random()
    if kind < 0.15:
        # Leap days and the end of February in leap and non-leap years.
        year = rng.choice([1996, 2000, 2004, 2023, 2024, 2028] if timed else [1900, 1996, 2000, 2004, 2023, 2024, 2028, 2100])
        day = 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
        date = dt.date(year, 2, rng.choice([day, 28, 27]))
    elif kind < 0.35 and not timed:
        # Far past: the window is in the 2020s. (Not for rules with several times a day: dateutil would walk
        # millions of them from DTSTART to the window.)
        date = dt.date(rng.randint(1900, 1990), rng.randint(1, 12), rng.randint(1, 28))
    else:
        date = dt.date(rng.randint(1995, 2030), rng.randint(1, 12), rng.randint(1, 28))
        if rng.random() < 0.3:
            date = date.replace(day=1) + dt.timedelta(days=rng.choice([27, 28, 29, 30]))
    if rng.random() < 0.25:
        return dt.datetime.combine(date, dt.time(0, 0, 0))
    return dt.datetime.combine(date, dt.time(rng.randint(0, 23), rng.choice([0, 0, 15, 30, 45, rng.randint(0, 59)]),
                                            rng.choice([0, 0, 0, rng.randint(0, 59)])))


class Timeout(Exception):
    pass


class PastWalkLimit(Exception):
    """dateutil's iteration reached a year past WALK_LIMIT."""


WALK_LIMIT = {"year": None}
CURRENT = {"case": ""}
_dateutil_rebuild = dateutil.rrule._iterinfo.rebuild


def guarded_rebuild(self, year, month):
    # dateutil calls _iterinfo.rebuild whenever its walk enters a new month or year, whatever the frequency.
    if WALK_LIMIT["year"] is not None and (year, month) > WALK_LIMIT["year"]:
        raise PastWalkLimit()
    return _dateutil_rebuild(self, year, month)


dateutil.rrule._iterinfo.rebuild = guarded_rebuild


class Refused(Exception):
    """dateutil refuses the rule."""


class Deviation(Exception):
    """The case falls on a known dateutil deviation from RFC 5545 (see the module docstring)."""


def week_one_start(year, wkst):
    jan1 = dt.date(year, 1, 1)
    offset = (jan1.weekday() - wkst) % 7
    return jan1 - dt.timedelta(days=offset) + dt.timedelta(days=7 if offset >= 4 else 0)


def weeks_in(year, wkst):
    return (week_one_start(year + 1, wkst) - week_one_start(year, wkst)).days // 7


def dateutil_last_week_number(year, wkst):
    """The week number dateutil gives the days of `year` before its week 1 (its `lnumweeks`), or None."""
    year_weekday = dt.date(year, 1, 1).weekday()
    no1wkst = (7 - year_weekday + wkst) % 7
    if no1wkst >= 4 or no1wkst == 0:
        return None
    last_weekday = dt.date(year - 1, 1, 1).weekday()
    last_no1wkst = (7 - last_weekday + wkst) % 7
    last_len = 366 if calendar.isleap(year - 1) else 365
    year_len = 366 if calendar.isleap(year) else 365
    if last_no1wkst >= 4:
        return 52 + (last_len + (last_weekday - wkst) % 7) % 7 // 4
    return 52 + (year_len - no1wkst) % 7 // 4


def dateutil_misnumbers_weeks(parts, first_year, last_year):
    weeknos = next((set(int(v) for v in p[len("BYWEEKNO="):].split(",")) for p in parts if p.startswith("BYWEEKNO=")), None)
    if not weeknos:
        return False
    wkst = next((DAYS.index(p[5:]) for p in parts if p.startswith("WKST=")), 0)
    for year in range(first_year - 1, last_year + 2):
        theirs, ours = dateutil_last_week_number(year, wkst), weeks_in(year - 1, wkst)
        if -1 not in weeknos and theirs is not None and theirs != ours and (theirs in weeknos or ours in weeknos):
            return True
        # The last days of `year` that are in week 1 of the next year: dateutil never matches them by the
        # negative number of that week (its "TODO: Check -numweeks for next year").
        if week_one_start(year + 1, wkst) <= dt.date(year, 12, 31) and -weeks_in(year + 1, wkst) in weeknos:
            return True
    return False


def on_alarm(signum, frame):
    raise Timeout()


def oracle_rule(rule, start):
    """The rule as dateutil must see it to give RFC 5545's answer where calpipe deliberately differs from it.

    FREQ=YEARLY;BYWEEKNO=n without BYDAY, BYMONTH, BYMONTHDAY or BYYEARDAY: the RFC takes what the rule does not say
    from DTSTART, so the instance falls on DTSTART's weekday of week n (libical and ical.js do so); dateutil
    gives every day of the week. Adding BYDAY=<DTSTART's weekday> makes dateutil give the RFC's set.
    """
    parts = rule.split(";")
    if ("FREQ=YEARLY" in parts and any(p.startswith("BYWEEKNO=") for p in parts)
            and not any(p.startswith(("BYDAY=", "BYMONTH=", "BYMONTHDAY=", "BYYEARDAY=")) for p in parts)):
        return rule + ";BYDAY=" + DAYS[start.weekday()]
    return rule


def make_case(rng):
    freq, parts = make_rule(rng)
    start = make_start(rng, freq, sub_daily_or_timed(parts))
    span = SPAN[freq]
    if start.year < 1991:
        window_from = dt.datetime(rng.randint(2020, 2026), rng.randint(1, 12), 1)
    else:
        window_from = start + dt.timedelta(seconds=int(span.total_seconds() * rng.choice([0, 0, -0.2, 0.3, 1.5])))
    window_to = window_from + span
    end = rng.random()
    date_form = start.time() == dt.time(0) and not sub_daily_or_timed(parts)
    if end < 0.3:
        parts.append("COUNT=%d" % rng.choice([1, 2, 3, 5, 10, 13, 40, 100, 500, 2000]))
    elif end < 0.55:
        until = window_from + dt.timedelta(seconds=int(span.total_seconds() * rng.random()))
        if date_form and rng.random() < 0.5:
            parts.append("UNTIL=" + until.strftime("%Y%m%d"))
        else:
            parts.append("UNTIL=" + fmt(until))
    if freq == "WEEKLY" and any(p.startswith("BYSETPOS=") for p in parts):
        # dateutil's first weekly period starts at DTSTART instead of at the week start, so BYSETPOS counts
        # differently in that first week; start such rules on their WKST day (see the module docstring).
        wkst = next((DAYS.index(p[5:]) for p in parts if p.startswith("WKST=")), 0)
        shift = (start.weekday() - wkst) % 7
        start -= dt.timedelta(days=shift)
        if start.year >= 1991 and window_from < start:
            window_from = start
            window_to = window_from + span
    if dateutil_misnumbers_weeks(parts, start.year, window_to.year):
        raise Deviation()
    rng.shuffle(parts)
    rule = ";".join(parts)
    CURRENT["case"] = "DTSTART:%s RRULE:%s window [%s, %s)" % (fmt(start), rule, fmt(window_from), fmt(window_to))
    try:
        rr = rrulestr("DTSTART:%s\nRRULE:%s" % (fmt(start), oracle_rule(rule, start)))
    except ValueError:
        # dateutil refuses rules whose BYHOUR/BYMINUTE/BYSECOND can never meet the INTERVAL.
        raise Refused()
    out = []
    first = None
    # Stop dateutil once it walks past the year after the window (the month after, for sub-daily rules): a rule that matches nothing more would
    # otherwise walk on to year 9999 (see guarded_rebuild).
    if freq in ("SECONDLY", "MINUTELY", "HOURLY"):
        WALK_LIMIT["year"] = (window_to.year + window_to.month // 12, window_to.month % 12 + 1)
    else:
        WALK_LIMIT["year"] = (window_to.year + 1, 12)
    try:
        for t in rr:
            if first is None:
                first = t
            if t >= window_to:
                break
            if t >= window_from:
                if len(out) == MAX_INSTANCES:
                    window_to = t
                    break
                out.append(t)
    except PastWalkLimit:
        pass
    except ValueError as error:
        # dateutil refuses some INTERVAL/BYHOUR combinations only once it starts iterating.
        if "empty" not in str(error):
            raise
        raise Refused()
    count_total, last = 0, ""
    if "COUNT=" in rule:
        # All instances when they end by then; otherwise the ones before the limit (the COUNT-th instance is
        # then past the window, which is all the test needs to know).
        every = []
        try:
            for t in rr:
                every.append(t)
        except PastWalkLimit:
            pass
        count_total = len(every)
        last = fmt(every[-1]) if every else ""
    WALK_LIMIT["year"] = None
    deltas, previous = [], window_from
    for t in out:
        deltas.append(int((t - previous).total_seconds()))
        previous = t
    return {"s": fmt(start), "r": rule, "f": fmt(window_from), "t": fmt(window_to),
            "m": 1 if first == start else 0, "n": count_total, "l": last, "o": deltas}


def sub_daily_or_timed(parts):
    text = ";".join(parts)
    return any(p in text for p in ("SECONDLY", "MINUTELY", "HOURLY", "BYHOUR", "BYMINUTE", "BYSECOND"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=2400)
    parser.add_argument("--seed", type=int, default=5545)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    signal.signal(signal.SIGALRM, on_alarm)
    print(json.dumps({"generator": "scripts/rrule-oracle.py", "dateutil": dateutil.__version__, "seed": args.seed,
                      "cases": args.cases, "command": "python3 scripts/rrule-oracle.py --cases %d --seed %d" % (args.cases, args.seed)}))
    written = dropped = 0
    while written < args.cases:
        state = rng.getstate()
        signal.alarm(20)
        try:
            case = make_case(rng)
        except Timeout:
            print("case %d: dateutil took over 20 s, dropped: %s" % (written + dropped + 1, CURRENT["case"]), file=sys.stderr)
            dropped += 1
            rng.setstate(state)
            rng.random()
            continue
        except (Refused, Deviation):
            dropped += 1
            rng.setstate(state)
            rng.random()  # move on deterministically
            continue
        finally:
            signal.alarm(0)
        print(json.dumps(case, separators=(",", ":")))
        written += 1
    print("wrote %d cases, dropped %d (slow, refused by dateutil, or on a known deviation)" % (written, dropped), file=sys.stderr)


if __name__ == "__main__":
    main()
