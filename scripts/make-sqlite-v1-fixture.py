#!/usr/bin/env python3
"""Writes Tests/Fixtures/sqlite/agenda-v1.db: an agenda database as calpipe 0.1 (schema version 1) wrote it.

The migration test upgrades a copy of it in place. The schema below is version 1 as released (it must never
change); the rows are computed here independently of calpipe: UTC instants with Python's zoneinfo.

Run from the repository root:  python3 scripts/make-sqlite-v1-fixture.py
(Made with Python 3.11 and its sqlite3 module; needs the system tz database.)
"""
import os
import sqlite3
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

OUT = os.path.join("Tests", "Fixtures", "sqlite", "agenda-v1.db")
BERLIN = ZoneInfo("Europe/Berlin")

SCHEMA_V1 = """
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    source TEXT NOT NULL,
    uid TEXT NOT NULL,
    recurrence_id TEXT NOT NULL DEFAULT '',
    title TEXT,
    description TEXT,
    location TEXT,
    latitude REAL,
    longitude REAL,
    organizer_name TEXT,
    organizer_email TEXT,
    categories TEXT,
    color TEXT,
    url TEXT,
    status TEXT,
    all_day INTEGER NOT NULL,
    dtstart TEXT NOT NULL,
    dtstart_tzid TEXT,
    start_utc INTEGER NOT NULL,
    dtend TEXT,
    dtend_tzid TEXT,
    duration TEXT,
    end_utc INTEGER NOT NULL,
    rrule TEXT,
    rdate TEXT,
    exdate TEXT,
    UNIQUE (source, uid, recurrence_id)
);
CREATE TABLE attendees (
    event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    name TEXT,
    email TEXT,
    role TEXT,
    status TEXT,
    PRIMARY KEY (event_id, position)
) WITHOUT ROWID;
CREATE TABLE occurrences (
    id INTEGER PRIMARY KEY,
    event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    instance TEXT NOT NULL,
    all_day INTEGER NOT NULL,
    start_utc INTEGER NOT NULL,
    end_utc INTEGER NOT NULL,
    start_local TEXT NOT NULL,
    end_local TEXT NOT NULL,
    UNIQUE (event_id, instance)
);
CREATE TABLE day_entries (
    id INTEGER PRIMARY KEY,
    occurrence_id INTEGER NOT NULL REFERENCES occurrences (id) ON DELETE CASCADE,
    event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    day TEXT NOT NULL,
    part INTEGER NOT NULL,
    parts INTEGER NOT NULL,
    all_day INTEGER NOT NULL,
    start_local TEXT NOT NULL,
    end_local TEXT NOT NULL,
    start_utc INTEGER NOT NULL,
    end_utc INTEGER NOT NULL,
    sort_key TEXT NOT NULL,
    UNIQUE (occurrence_id, day)
);
CREATE INDEX day_entries_by_day ON day_entries (day, sort_key);
CREATE INDEX day_entries_by_event ON day_entries (event_id);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    pipeline TEXT NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL,
    events INTEGER,
    day_entries INTEGER
);
"""

EPOCH_SHIFT = 62_167_219_200  # seconds from 0000-01-01 to 1970-01-01: sort keys are 12-digit positive numbers


def utc(local: datetime) -> int:
    return int(local.replace(tzinfo=BERLIN).timestamp())


def offset_text(local: datetime) -> str:
    off = local.replace(tzinfo=BERLIN).utcoffset()
    minutes = int(off.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def sort_key(all_day: bool, start_utc: int) -> str:
    return ("0" if all_day else "1") + f"{start_utc + EPOCH_SHIFT:012d}"


def main() -> None:
    if os.path.exists(OUT):
        os.remove(OUT)
    db = sqlite3.connect(OUT)
    db.executescript(SCHEMA_V1)

    def timed(eid, uid, title, start: datetime, end: datetime, location=None):
        s, e = utc(start), utc(end)
        db.execute(
            "INSERT INTO events (id, source, uid, recurrence_id, title, location, all_day, dtstart, dtstart_tzid, start_utc,"
            " dtend, dtend_tzid, end_utc) VALUES (?, 'team', ?, '', ?, ?, 0, ?, 'Europe/Berlin', ?, ?, 'Europe/Berlin', ?)",
            (eid, uid, title, location, start.isoformat() + offset_text(start), s, end.isoformat() + offset_text(end), e))
        db.execute("INSERT INTO occurrences (id, event_id, instance, all_day, start_utc, end_utc, start_local, end_local)"
                   " VALUES (?, ?, '', 0, ?, ?, ?, ?)", (eid, eid, s, e, start.isoformat(), end.isoformat()))
        db.execute("INSERT INTO day_entries (id, occurrence_id, event_id, day, part, parts, all_day, start_local, end_local,"
                   " start_utc, end_utc, sort_key) VALUES (?, ?, ?, ?, 1, 1, 0, ?, ?, ?, ?, ?)",
                   (10 * eid, eid, eid, start.date().isoformat(), start.isoformat(), end.isoformat(), s, e, sort_key(False, s)))

    timed(1, "a@x", "Standup", datetime(2026, 11, 10, 10), datetime(2026, 11, 10, 11), "Room 4")
    db.execute("INSERT INTO attendees VALUES (1, 0, 'Ann', 'ann@example.com', 'CHAIR', NULL)")
    db.execute("INSERT INTO attendees VALUES (1, 1, NULL, 'bob@example.com', NULL, NULL)")

    # An all-day event over two days.
    first, end = datetime(2026, 11, 12), datetime(2026, 11, 14)
    db.execute("INSERT INTO events (id, source, uid, recurrence_id, title, all_day, dtstart, start_utc, dtend, end_utc)"
               " VALUES (2, 'team', 'b@x', '', 'Offsite', 1, '2026-11-12', ?, '2026-11-14', ?)", (utc(first), utc(end)))
    db.execute("INSERT INTO occurrences VALUES (2, 2, '', 1, ?, ?, ?, ?)", (utc(first), utc(end), first.isoformat(), end.isoformat()))
    for part in (1, 2):
        day = first + timedelta(days=part - 1)
        nxt = day + timedelta(days=1)
        db.execute("INSERT INTO day_entries VALUES (?, 2, 2, ?, ?, 2, 1, ?, ?, ?, ?, ?)",
                   (20 + part, day.date().isoformat(), part, day.isoformat(), nxt.isoformat(), utc(day), utc(nxt), sort_key(True, utc(day))))

    timed(3, "c@x", "Old thing", datetime(2026, 11, 20, 9), datetime(2026, 11, 20, 9, 30))

    db.execute("INSERT INTO runs VALUES (1, 'team', '2026-10-30T06:00:00Z', '2026-10-30T06:00:01Z', 'ok', 3, 4)")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.execute("VACUUM")
    db.close()
    print("wrote", OUT)


if __name__ == "__main__":
    main()
