/*
 * The floor of issue 18 for a fresh load: insert the day rows calpipe wrote, as (uid, day, start, end, summary,
 * location, all_day), into ONE plain table (no constraint, no index), with one prepared statement in one
 * transaction, WAL, synchronous=NORMAL, and nothing else: no parsing, no expansion, no other table.
 *
 * usage: sqlite-floor-days SOURCE.db TARGET.db
 * Loads the rows from SOURCE (a database the sqlite sink wrote: day_entries joined with their events) into
 * memory (not timed), then times opening a new TARGET, BEGIN .. COMMIT of the inserts and closing it, and prints
 * "ROWS WALL_SECONDS CPU_SECONDS" (CPU time of this process over the same span). Every SQLite return code is
 * checked. Built and run by scripts/bench (the fresh-load ratio of the incremental tasks).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void fail(sqlite3 *db, const char *what) {
    fprintf(stderr, "sqlite-floor-days: %s: %s\n", what, db ? sqlite3_errmsg(db) : "out of memory");
    exit(1);
}

static void check(sqlite3 *db, int rc, const char *what) {
    if (rc != SQLITE_OK) fail(db, what);
}

static void exec(sqlite3 *db, const char *sql) {
    char *message = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &message) != SQLITE_OK) {
        fprintf(stderr, "sqlite-floor-days: %s: %s\n", sql, message ? message : "?");
        exit(1);
    }
}

enum { COLUMNS = 7 };

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: sqlite-floor-days SOURCE.db TARGET.db\n");
        return 2;
    }
    sqlite3 *src, *dst;
    check(NULL, sqlite3_open_v2(argv[1], &src, SQLITE_OPEN_READONLY, NULL), argv[1]);
    const char *select = "SELECT e.uid, d.day, d.start_local, d.end_local, e.title, e.location, d.all_day "
                         "FROM day_entries d JOIN events e ON e.id = d.event_id ORDER BY d.id";
    sqlite3_stmt *s;
    check(src, sqlite3_prepare_v2(src, select, -1, &s, NULL), select);
    size_t capacity = 1 << 16, rows = 0;
    sqlite3_value **values = malloc(capacity * COLUMNS * sizeof *values);
    if (!values) fail(NULL, "malloc");
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (rows == capacity) {
            capacity *= 2;
            values = realloc(values, capacity * COLUMNS * sizeof *values);
            if (!values) fail(NULL, "realloc");
        }
        for (int c = 0; c < COLUMNS; c++) {
            sqlite3_value *v = sqlite3_value_dup(sqlite3_column_value(s, c));
            if (!v) fail(NULL, "sqlite3_value_dup");
            values[rows * COLUMNS + (size_t)c] = v;
        }
        rows++;
    }
    if (rc != SQLITE_DONE) fail(src, select);
    check(src, sqlite3_finalize(s), "finalize");

    remove(argv[2]);
    struct timespec start, end, cpuStart, cpuEnd;
    clock_gettime(CLOCK_MONOTONIC, &start);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpuStart);
    if (sqlite3_open_v2(argv[2], &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) fail(dst, argv[2]);
    exec(dst, "PRAGMA journal_mode = WAL");
    exec(dst, "PRAGMA synchronous = NORMAL");
    exec(dst, "CREATE TABLE days (uid TEXT, day TEXT, start TEXT, end TEXT, summary TEXT, location TEXT, all_day INTEGER)");
    exec(dst, "BEGIN");
    sqlite3_stmt *insert;
    const char *sql = "INSERT INTO days VALUES (?, ?, ?, ?, ?, ?, ?)";
    check(dst, sqlite3_prepare_v2(dst, sql, -1, &insert, NULL), sql);
    for (size_t r = 0; r < rows; r++) {
        for (int c = 0; c < COLUMNS; c++) check(dst, sqlite3_bind_value(insert, c + 1, values[r * COLUMNS + (size_t)c]), "bind");
        if (sqlite3_step(insert) != SQLITE_DONE) fail(dst, "insert");
        check(dst, sqlite3_reset(insert), "reset");
    }
    check(dst, sqlite3_finalize(insert), "finalize");
    exec(dst, "COMMIT");
    check(dst, sqlite3_close(dst), "close");
    clock_gettime(CLOCK_MONOTONIC, &end);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpuEnd);
    double seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    double cpu = (double)(cpuEnd.tv_sec - cpuStart.tv_sec) + (double)(cpuEnd.tv_nsec - cpuStart.tv_nsec) / 1e9;
    printf("%zu %.6f %.6f\n", rows, seconds, cpu);
    for (size_t k = 0; k < rows * COLUMNS; k++) sqlite3_value_free(values[k]);
    free(values);
    check(src, sqlite3_close(src), "close");
    return 0;
}
