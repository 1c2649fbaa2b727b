#!/usr/bin/env python3
"""A feed of 50 series whose rules can never produce an instance after DTSTART, as a fuzz campaign found them
(issue 30, item 3): `FREQ=SECONDLY;BYSECOND=13,55;BYSETPOS=36,47` (one second per SECONDLY set, so position 36
never exists) and its kin, days that do not exist, an UNTIL before DTSTART. Deterministic (no randomness).

    python3 scripts/gen-never-matching-feed.py > Tests/Fixtures/recurrence/never-matching-50.ics
    time .build/release/calpipe convert Tests/Fixtures/recurrence/never-matching-50.ics -o /tmp/x.json \
        --from 2026-01-01 --to 2030-01-01
"""
RULES = [
    "FREQ=SECONDLY;BYSECOND=13,55;BYSETPOS=36,47",
    "FREQ=SECONDLY;BYSETPOS=2",
    "FREQ=SECONDLY;BYMINUTE=5;BYSETPOS=-3",
    "FREQ=MINUTELY;BYSECOND=1,2;BYSETPOS=3",
    "FREQ=MINUTELY;BYHOUR=4;BYSETPOS=9",
    "FREQ=HOURLY;BYMINUTE=0,30;BYSETPOS=5,-7",
    "FREQ=DAILY;BYHOUR=9;BYSETPOS=2",
    "FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30",
    "FREQ=MINUTELY;BYMONTH=4,6,9,11;BYMONTHDAY=31",
    "FREQ=HOURLY;BYMONTHDAY=-31;BYMONTH=2",
    "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30,31",
    "FREQ=SECONDLY;BYYEARDAY=60;BYMONTH=1",
    "FREQ=SECONDLY;BYWEEKNO=20;BYMONTH=1",
    "FREQ=MINUTELY;BYYEARDAY=-1;BYMONTH=6",
]


def main():
    out = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calpipe//never-matching rules//EN"]
    for i in range(50):
        rule = RULES[i % len(RULES)]
        day = 1 + i % 28
        out += [
            "BEGIN:VEVENT",
            f"UID:never-{i:02d}@fuzz.calpipe.invalid",
            "DTSTAMP:20260101T000000Z",
            f"DTSTART;TZID=Europe/Berlin:202601{day:02d}T{8 + i % 10:02d}{i % 60:02d}17",
            "DURATION:PT30M",
            f"RRULE:{rule}",
            f"SUMMARY:Rule {i} ({rule.split(';')[0]})",
            f"DESCRIPTION:A series whose rule can never match after DTSTART: {rule}. RFC 5545 still counts DTSTART "
            "as its first instance\\, so it shows once.",
            "END:VEVENT",
        ]
    out.append("END:VCALENDAR")
    data = "\r\n".join(out) + "\r\n"
    # Fold at 75 octets (RFC 5545 3.1).
    folded = []
    for line in data.split("\r\n")[:-1]:
        while len(line.encode()) > 75:
            folded.append(line[:75])
            line = " " + line[75:]
        folded.append(line)
    print("\r\n".join(folded), end="\r\n")


if __name__ == "__main__":
    main()
