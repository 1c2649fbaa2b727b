/*
 * The SQLite insert floor for scripts/bench, task (c): how fast plain C can write the very rows calpipe
 * wrote, with one prepared statement per table in one transaction, WAL.
 *
 *   cc -O2 -o .bench/bin/sqlite_floor scripts/peers/sqlite_floor.c $(pkg-config --cflags --libs sqlite3)
 *   sqlite_floor SOURCE.sqlite DEST.sqlite    -> "rows N seconds S" (and one "table NAME ROWS" line each)
 *
 * Every row of every table of SOURCE (the database calpipe's sqlite sink wrote) is first loaded into memory
 * (not timed). Then, timed with CLOCK_MONOTONIC: open DEST (must not exist), journal_mode=WAL, create each
 * table with the same column names and declared types but no constraints or indexes (a floor, not a
 * schema), BEGIN, one INSERT statement per table bound with sqlite3_bind_value per row, COMMIT, close.
 * Peak RSS therefore includes the loaded rows; the seconds are the insert phase only.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    char *name;
    char *create_sql;
    char *insert_sql;
    int columns;
    long rows;
    sqlite3_value **values; /* rows * columns */
} Table;

static void die(sqlite3 *db, const char *what) {
    fprintf(stderr, "sqlite_floor: %s: %s\n", what, db ? sqlite3_errmsg(db) : "?");
    exit(1);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void append(char **buf, size_t *len, size_t *cap, const char *s) {
    size_t n = strlen(s);
    if (*len + n + 1 > *cap) {
        *cap = (*len + n + 1) * 2;
        *buf = realloc(*buf, *cap);
    }
    memcpy(*buf + *len, s, n + 1);
    *len += n;
}

static void load(sqlite3 *src, Table *t) {
    char sql[512];
    /* columns and declared types */
    snprintf(sql, sizeof sql, "PRAGMA table_info(\"%s\")", t->name);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(src, sql, -1, &st, NULL) != SQLITE_OK) die(src, sql);
    char *create = NULL, *insert = NULL;
    size_t cl = 0, cc = 0, il = 0, ic = 0;
    append(&create, &cl, &cc, "CREATE TABLE \"");
    append(&create, &cl, &cc, t->name);
    append(&create, &cl, &cc, "\" (");
    append(&insert, &il, &ic, "INSERT INTO \"");
    append(&insert, &il, &ic, t->name);
    append(&insert, &il, &ic, "\" VALUES (");
    t->columns = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (t->columns) { append(&create, &cl, &cc, ", "); append(&insert, &il, &ic, ", "); }
        append(&create, &cl, &cc, "\"");
        append(&create, &cl, &cc, (const char *)sqlite3_column_text(st, 1));
        append(&create, &cl, &cc, "\" ");
        append(&create, &cl, &cc, (const char *)sqlite3_column_text(st, 2));
        append(&insert, &il, &ic, "?");
        t->columns++;
    }
    sqlite3_finalize(st);
    append(&create, &cl, &cc, ")");
    append(&insert, &il, &ic, ")");
    t->create_sql = create;
    t->insert_sql = insert;

    snprintf(sql, sizeof sql, "SELECT * FROM \"%s\"", t->name);
    if (sqlite3_prepare_v2(src, sql, -1, &st, NULL) != SQLITE_OK) die(src, sql);
    long cap = 1024;
    t->values = malloc(sizeof(sqlite3_value *) * (size_t)cap * (size_t)t->columns);
    t->rows = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (t->rows == cap) {
            cap *= 2;
            t->values = realloc(t->values, sizeof(sqlite3_value *) * (size_t)cap * (size_t)t->columns);
        }
        for (int c = 0; c < t->columns; c++)
            t->values[t->rows * t->columns + c] = sqlite3_value_dup(sqlite3_column_value(st, c));
        t->rows++;
    }
    if (rc != SQLITE_DONE) die(src, sql);
    sqlite3_finalize(st);
}

static void exec(sqlite3 *db, const char *sql) {
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "sqlite_floor: %s: %s\n", sql, err ? err : "?");
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: sqlite_floor SOURCE.sqlite DEST.sqlite\n");
        return 2;
    }
    sqlite3 *src;
    if (sqlite3_open_v2(argv[1], &src, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) die(src, argv[1]);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(src, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
                           -1, &st, NULL) != SQLITE_OK) die(src, "listing tables");
    Table tables[64];
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW && n < 64) {
        memset(&tables[n], 0, sizeof(Table));
        tables[n++].name = strdup((const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    for (int i = 0; i < n; i++) load(src, &tables[i]);
    sqlite3_close(src);

    double t0 = now();
    sqlite3 *db;
    if (sqlite3_open_v2(argv[2], &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) die(db, argv[2]);
    exec(db, "PRAGMA journal_mode=WAL");
    exec(db, "BEGIN");
    long total = 0;
    for (int i = 0; i < n; i++) {
        Table *t = &tables[i];
        exec(db, t->create_sql);
        sqlite3_stmt *ins;
        if (sqlite3_prepare_v2(db, t->insert_sql, -1, &ins, NULL) != SQLITE_OK) die(db, t->insert_sql);
        for (long r = 0; r < t->rows; r++) {
            for (int c = 0; c < t->columns; c++)
                if (sqlite3_bind_value(ins, c + 1, t->values[r * t->columns + c]) != SQLITE_OK) die(db, "bind");
            if (sqlite3_step(ins) != SQLITE_DONE) die(db, t->insert_sql);
            sqlite3_reset(ins);
        }
        sqlite3_finalize(ins);
        total += t->rows;
    }
    exec(db, "COMMIT");
    if (sqlite3_close(db) != SQLITE_OK) die(db, "close");
    double seconds = now() - t0;
    for (int i = 0; i < n; i++) printf("table %s %ld\n", tables[i].name, tables[i].rows);
    printf("rows %ld seconds %.4f\n", total, seconds);
    return 0;
}
