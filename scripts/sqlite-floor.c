/*
 * The floor for calpipe's sqlite sink benchmark: inserts the same rows calpipe wrote, as fast as plain
 * SQLite allows: one prepared INSERT per table, one transaction, WAL, no secondary indexes or constraints.
 *
 * usage: sqlite-floor SOURCE.db TARGET.db [--same-schema | --bulk-schema | --folded]
 * Loads every row of events, attendees, occurrences and day_entries from SOURCE (a database the sqlite sink
 * wrote) into memory, then times BEGIN .. COMMIT of inserting them into a new TARGET, and prints
 * "ROWS WALL_SECONDS CPU_SECONDS" (CPU time of this process over the same span).
 * With --same-schema the target gets SOURCE's own tables (unique keys; foreign keys declared but, as on the
 * sink's own connection, not enforced) and its secondary indexes are built before COMMIT: what SQLite alone
 * costs for calpipe's schema. With --bulk-schema the target gets the plain tables and, before COMMIT, calpipe's
 * unique keys and secondary indexes built over the loaded rows (what the sink's bulk load of a new database
 * does). With --folded the target gets the smallest schema that would still serve incremental runs and agenda
 * queries (issue 18: "occurrences and day rows both stored?"): no occurrences table (each day row carries its
 * occurrence's instance), no events.source_text, and only three indexes (events' key, day rows' key by event and
 * instance, the agenda's day index), built before COMMIT. Every SQLite return code is checked. Built and run by
 * scripts/sqlite-bench.py and scripts/bench (tasks (c) and (h)).
 *
 * From schema 10 the sink folds occurrences into their day rows (`occurrences` is a view). Given such a SOURCE,
 * the plain floor and --folded insert exactly the rows they inserted from older files (the view's occurrence
 * rows, and the day rows' columns of schema 9), so that their figures stay comparable across versions;
 * --same-schema and --bulk-schema take SOURCE's own tables and indexes, which no longer include occurrences.
 * From schema 11 the sink stores day rows narrow in `day_rows` (`day_entries` is a view computing the local times
 * and the sort key): --same-schema and --bulk-schema then insert `day_rows` as stored, with schema 11's indexes
 * (from schema 12 keyed on the integer `instance_key`).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *tables[] = {"events", "attendees", "occurrences", "day_entries"};
enum { TABLE_COUNT = 4 };

static void fail(sqlite3 *db, const char *what) {
    fprintf(stderr, "sqlite-floor: %s: %s\n", what, db ? sqlite3_errmsg(db) : "out of memory");
    exit(1);
}

static void check(sqlite3 *db, int rc, const char *what) {
    if (rc != SQLITE_OK) fail(db, what);
}

static void exec(sqlite3 *db, const char *sql) {
    char *message = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &message) != SQLITE_OK) {
        fprintf(stderr, "sqlite-floor: %s: %s\n", sql, message ? message : "?");
        exit(1);
    }
}

typedef struct {
    int columns;
    size_t rows;
    sqlite3_value **values; /* rows * columns */
    char create[8192];
    char insert[4096];
} Table;

/* Reads every row of `select` (default: SELECT * FROM name) into t, and makes the plain CREATE TABLE and INSERT
 * of its columns (names and declared types from the statement; a rowid table's INTEGER PRIMARY KEY `id` kept). */
static void load(sqlite3 *src, const char *name, const char *select_sql, Table *t) {
    char sql[512];
    if (!select_sql) {
        snprintf(sql, sizeof sql, "SELECT * FROM %s", name);
        select_sql = sql;
    }
    sqlite3_stmt *select;
    check(src, sqlite3_prepare_v2(src, select_sql, -1, &select, NULL), select_sql);
    int n = sqlite3_column_count(select);
    size_t cl = (size_t)snprintf(t->create, sizeof t->create, "CREATE TABLE %s (", name);
    size_t il = (size_t)snprintf(t->insert, sizeof t->insert, "INSERT INTO %s VALUES (", name);
    for (int c = 0; c < n; c++) {
        const char *col = sqlite3_column_name(select, c);
        const char *type = sqlite3_column_decltype(select, c);
        /* Keep rowid tables' INTEGER PRIMARY KEY (it is the rowid, not an index); no other constraint. */
        int rowid = strcmp(col, "id") == 0 && strcmp(name, "attendees") != 0;
        cl += (size_t)snprintf(t->create + cl, sizeof t->create - cl, "%s%s %s%s", c ? ", " : "", col, type ? type : "",
                               rowid ? " PRIMARY KEY" : "");
        il += (size_t)snprintf(t->insert + il, sizeof t->insert - il, "%s?", c ? ", " : "");
    }
    snprintf(t->create + cl, sizeof t->create - cl, ")");
    snprintf(t->insert + il, sizeof t->insert - il, ")");
    t->columns = n;

    size_t capacity = 1024;
    t->rows = 0;
    t->values = malloc(capacity * (size_t)n * sizeof *t->values);
    if (!t->values) fail(NULL, "malloc");
    int rc;
    while ((rc = sqlite3_step(select)) == SQLITE_ROW) {
        if (t->rows == capacity) {
            capacity *= 2;
            t->values = realloc(t->values, capacity * (size_t)n * sizeof *t->values);
            if (!t->values) fail(NULL, "realloc");
        }
        for (int c = 0; c < n; c++) {
            sqlite3_value *v = sqlite3_value_dup(sqlite3_column_value(select, c));
            if (!v) fail(NULL, "sqlite3_value_dup");
            t->values[t->rows * (size_t)n + (size_t)c] = v;
        }
        t->rows++;
    }
    if (rc != SQLITE_DONE) fail(src, select_sql);
    check(src, sqlite3_finalize(select), "finalize");
}

/* The integer that `sql` (one row, one column) answers. */
static int count(sqlite3 *db, const char *sql) {
    sqlite3_stmt *s;
    check(db, sqlite3_prepare_v2(db, sql, -1, &s, NULL), sql);
    if (sqlite3_step(s) != SQLITE_ROW) fail(db, sql);
    int n = sqlite3_column_int(s, 0);
    check(db, sqlite3_finalize(s), "finalize");
    return n;
}

int main(int argc, char **argv) {
    int sameSchema = argc == 4 && strcmp(argv[3], "--same-schema") == 0;
    int bulkSchema = argc == 4 && strcmp(argv[3], "--bulk-schema") == 0;
    int folded = argc == 4 && strcmp(argv[3], "--folded") == 0;
    if (argc != 3 && !sameSchema && !bulkSchema && !folded) {
        fprintf(stderr, "usage: sqlite-floor SOURCE.db TARGET.db [--same-schema | --bulk-schema | --folded]\n");
        return 2;
    }
    sqlite3 *src, *dst;
    check(NULL, sqlite3_open_v2(argv[1], &src, SQLITE_OPEN_READONLY, NULL), argv[1]);
    /* Schema 10 and later: occurrences are a view over the day rows. */
    int sourceFolded = count(src, "SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name = 'occurrences'") > 0;
    /* Schema 11 and later: day rows stored in day_rows, day_entries a view over it. */
    int sourceNarrow = count(src, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'day_rows'") > 0;
    /* Schema 12 and later: the instance as an integer key (day_rows.instance_key). */
    int sourceKeyed = sourceNarrow && count(src, "SELECT count(*) FROM pragma_table_info('day_rows') WHERE name = 'instance_key'") > 0;
    /* The day rows' columns of schema 9. */
    const char *dayColumns = "id, occurrence_id, event_id, day, part, parts, all_day, start_local, end_local, start_utc, end_utc, sort_key, removed_run";
    char daySelect[512];
    Table t[TABLE_COUNT];
    if (folded) {
        /* The smallest schema that still serves incremental runs and agenda queries: no occurrences table (each day
         * row carries its occurrence's instance), no events.source_text. */
        char events[4096];
        size_t l = (size_t)snprintf(events, sizeof events, "SELECT ");
        sqlite3_stmt *info;
        const char *sql = "SELECT name FROM pragma_table_info('events') WHERE name != 'source_text' ORDER BY cid";
        check(src, sqlite3_prepare_v2(src, sql, -1, &info, NULL), sql);
        int rc, n = 0;
        while ((rc = sqlite3_step(info)) == SQLITE_ROW)
            l += (size_t)snprintf(events + l, sizeof events - l, "%s%s", n++ ? ", " : "", (const char *)sqlite3_column_text(info, 0));
        if (rc != SQLITE_DONE) fail(src, sql);
        check(src, sqlite3_finalize(info), "finalize");
        snprintf(events + l, sizeof events - l, " FROM events");
        load(src, "events", events, &t[0]);
        load(src, "attendees", NULL, &t[1]);
        load(src, "occurrences", "SELECT * FROM occurrences WHERE 0", &t[2]);
        if (sourceFolded) {
            snprintf(daySelect, sizeof daySelect, "SELECT %s, instance FROM day_entries ORDER BY id", dayColumns);
            load(src, "day_entries", daySelect, &t[3]);
        } else {
            load(src, "day_entries", "SELECT d.*, o.instance FROM day_entries d JOIN occurrences o ON o.id = d.occurrence_id ORDER BY d.id", &t[3]);
        }
    } else if (sourceFolded && !sameSchema && !bulkSchema) {
        /* The plain floor: the rows of schema 9 (occurrences from the view, day rows without the folded columns). */
        for (int i = 0; i < 3; i++) load(src, tables[i], NULL, &t[i]);
        snprintf(daySelect, sizeof daySelect, "SELECT %s FROM day_entries", dayColumns);
        load(src, "day_entries", daySelect, &t[3]);
    } else {
        for (int i = 0; i < TABLE_COUNT; i++) {
            /* calpipe's own tables: no occurrences table from schema 10. */
            load(src, sourceNarrow && i == 3 ? "day_rows" : tables[i], sourceFolded && i == 2 ? "SELECT * FROM occurrences WHERE 0" : NULL, &t[i]);
        }
    }

    remove(argv[2]);
    if (sqlite3_open_v2(argv[2], &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) fail(dst, argv[2]);
    exec(dst, "PRAGMA journal_mode = WAL");
    sqlite3_stmt *indexes = NULL;
    if (sameSchema) {
        sqlite3_stmt *m;
        const char *sql = "SELECT sql FROM sqlite_master WHERE type = 'table' AND name IN ('events', 'attendees', 'occurrences', 'day_entries', 'day_rows') ORDER BY rootpage";
        check(src, sqlite3_prepare_v2(src, sql, -1, &m, NULL), sql);
        int rc;
        while ((rc = sqlite3_step(m)) == SQLITE_ROW) exec(dst, (const char *)sqlite3_column_text(m, 0));
        if (rc != SQLITE_DONE) fail(src, sql);
        check(src, sqlite3_finalize(m), "finalize");
        /* The sink does not enforce foreign keys on its connection (docs/sqlite-schema.md, "Speed"). */
        exec(dst, "PRAGMA foreign_keys = OFF");
        sql = "SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('events', 'attendees', 'occurrences', 'day_entries', 'day_rows')";
        check(src, sqlite3_prepare_v2(src, sql, -1, &indexes, NULL), sql);
    } else {
        for (int i = 0; i < TABLE_COUNT; i++) {
            if (sourceFolded && i == 2 && bulkSchema) continue;
            exec(dst, t[i].create);
        }
    }

    struct timespec start, end, cpuStart, cpuEnd;
    clock_gettime(CLOCK_MONOTONIC, &start);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpuStart);
    exec(dst, "BEGIN IMMEDIATE");
    size_t total = 0;
    for (int i = 0; i < TABLE_COUNT; i++) {
        if (sourceFolded && i == 2 && (sameSchema || bulkSchema)) continue; /* no occurrences table */
        sqlite3_stmt *insert;
        check(dst, sqlite3_prepare_v2(dst, t[i].insert, -1, &insert, NULL), t[i].insert);
        for (size_t r = 0; r < t[i].rows; r++) {
            for (int c = 0; c < t[i].columns; c++) {
                check(dst, sqlite3_bind_value(insert, c + 1, t[i].values[r * (size_t)t[i].columns + (size_t)c]), "bind");
            }
            if (sqlite3_step(insert) != SQLITE_DONE) fail(dst, "insert");
            check(dst, sqlite3_reset(insert), "reset");
        }
        check(dst, sqlite3_finalize(insert), "finalize");
        total += t[i].rows;
    }
    if (bulkSchema && sourceKeyed) {
        /* Schema 12's keys and indexes (SQLiteSchema.keyedIndexes). */
        exec(dst, "CREATE UNIQUE INDEX events_key ON events (source, uid, recurrence_id)");
        exec(dst, "CREATE UNIQUE INDEX day_entries_key ON day_rows (event_id, instance_key, day)");
        exec(dst, "CREATE INDEX day_entries_by_day ON day_rows (day)");
        exec(dst, "CREATE INDEX day_entries_occurrence ON day_rows (occurrence_id) WHERE occurrence_id IS NOT NULL");
    } else if (bulkSchema && sourceNarrow) {
        /* Schema 11's keys and indexes (SQLiteSchema.narrowIndexes). */
        exec(dst, "CREATE UNIQUE INDEX events_key ON events (source, uid, recurrence_id)");
        exec(dst, "CREATE UNIQUE INDEX day_entries_key ON day_rows (event_id, instance, day)");
        exec(dst, "CREATE INDEX day_entries_by_day ON day_rows (day)");
    } else if (bulkSchema && sourceFolded) {
        /* Schema 10's keys and indexes (SQLiteSchema.foldedIndexes). */
        exec(dst, "CREATE UNIQUE INDEX events_key ON events (source, uid, recurrence_id)");
        exec(dst, "CREATE UNIQUE INDEX day_entries_key ON day_entries (event_id, instance, day)");
        exec(dst, "CREATE INDEX day_entries_by_day ON day_entries (day, sort_key)");
    } else if (bulkSchema) {
        exec(dst, "CREATE UNIQUE INDEX events_key ON events (source, uid, recurrence_id)");
        exec(dst, "CREATE UNIQUE INDEX occurrences_key ON occurrences (event_id, instance)");
        exec(dst, "CREATE UNIQUE INDEX day_entries_key ON day_entries (occurrence_id, day)");
        exec(dst, "CREATE INDEX day_entries_by_day ON day_entries (day, sort_key)");
        exec(dst, "CREATE INDEX occurrences_by_start ON occurrences (start_utc)");
    }
    if (folded) {
        /* One key per day row that also finds an event's rows (no separate by-event index), the agenda's index,
         * and the events' key. */
        exec(dst, "CREATE UNIQUE INDEX events_key ON events (source, uid, recurrence_id)");
        exec(dst, "CREATE UNIQUE INDEX day_entries_key ON day_entries (event_id, instance, day)");
        exec(dst, "CREATE INDEX day_entries_by_day ON day_entries (day, sort_key)");
    }
    if (indexes) {
        int rc;
        while ((rc = sqlite3_step(indexes)) == SQLITE_ROW) exec(dst, (const char *)sqlite3_column_text(indexes, 0));
        if (rc != SQLITE_DONE) fail(src, "indexes");
        check(src, sqlite3_finalize(indexes), "finalize");
    }
    exec(dst, "COMMIT");
    clock_gettime(CLOCK_MONOTONIC, &end);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpuEnd);
    double seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    double cpu = (double)(cpuEnd.tv_sec - cpuStart.tv_sec) + (double)(cpuEnd.tv_nsec - cpuStart.tv_nsec) / 1e9;
    printf("%zu %.6f %.6f\n", total, seconds, cpu);

    for (int i = 0; i < TABLE_COUNT; i++) {
        for (size_t k = 0; k < t[i].rows * (size_t)t[i].columns; k++) sqlite3_value_free(t[i].values[k]);
        free(t[i].values);
    }
    check(dst, sqlite3_close(dst), "close");
    check(src, sqlite3_close(src), "close");
    return 0;
}
