#ifndef CALPIPE_CSQLITE_SHIM_H
#define CALPIPE_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type calpipe_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_config is variadic, which Swift cannot call. Turns off SQLite's count of its own memory use: with it
// on, every allocation inside SQLite takes a process-wide mutex (about 8% of a sink's time in perf). Must run
// before the library initialises (before the first open); afterwards SQLite answers SQLITE_MISUSE.
static inline int calpipe_sqlite_disable_memstatus(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
// How many bytes of a statement journal (what one statement changed, kept to undo it alone) stay in memory before
// it spills into a temporary file. With `PRAGMA temp_store = FILE` SQLite's default is 64 KiB: four 16 KiB pages,
// so the sink's upserts wrote their journals to disk (46,827 writes in a one-day window move). Bounded per
// statement. Must run before the library initialises, as above.
static inline int calpipe_sqlite_statement_journal_spill(int bytes) { return sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, bytes); }
#endif
