import CSQLite

extension Database {
    /// How BEGIN takes its locks: deferred (on first read/write), immediate (write lock now, so a second
    /// writer waits for the busy timeout at BEGIN instead of failing midway), exclusive.
    package enum TransactionKind: String, Sendable {
        case deferred = "DEFERRED"
        case immediate = "IMMEDIATE"
        case exclusive = "EXCLUSIVE"
    }

    package func beginTransaction(_ kind: TransactionKind = .deferred) throws {
        try cachedStatement("BEGIN \(kind.rawValue) TRANSACTION").run()
    }

    package func commit() throws {
        try cachedStatement("COMMIT TRANSACTION").run()
    }

    /// Rolls back the open transaction. Does nothing when SQLite already rolled it back by itself (some
    /// errors such as SQLITE_FULL or an interrupt end the transaction).
    package func rollback() throws {
        guard isInTransaction else { return }
        try cachedStatement("ROLLBACK TRANSACTION").run()
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws (the body's error
    /// is rethrown; a rollback failure then is secondary and dropped).
    package func inTransaction<T>(_ kind: TransactionKind = .deferred, _ body: () throws -> T) throws -> T {
        try beginTransaction(kind)
        let result: T
        do {
            result = try body()
        } catch {
            try? rollback()
            throw error
        }
        do {
            try commit()
        } catch {
            // A failed COMMIT (e.g. SQLITE_BUSY) may leave the transaction open: do not leave it dangling.
            try? rollback()
            throw error
        }
        return result
    }

    /// Runs `body` inside a savepoint (nestable, inside or outside a transaction): released when it returns,
    /// rolled back to its start when it throws.
    package func inSavepoint<T>(_ name: String = "calpipe", _ body: () throws -> T) throws -> T {
        let quoted = Database.quote(name, with: "\"")
        try execute("SAVEPOINT \(quoted)")
        let result: T
        do {
            result = try body()
        } catch {
            // ROLLBACK TO keeps the savepoint open; RELEASE then closes it.
            try? execute("ROLLBACK TO SAVEPOINT \(quoted)")
            try? execute("RELEASE SAVEPOINT \(quoted)")
            throw error
        }
        try execute("RELEASE SAVEPOINT \(quoted)")
        return result
    }
}
