import Foundation
import GRDB
import GRDBSQLite
import ParleyStore

/// One of a connection's cached statements, bound and stepped through SQLite's C API.
/// For the send path, where GRDB's general machinery (an array of existential arguments,
/// a `Row` and its cursor per query) cost more than SQLite's own work. The statement stays GRDB's: it is prepared, cached and finalized
/// by the connection, and is reset here after each use.
struct RawStatement {
    private let statement: OpaquePointer
    private let connection: OpaquePointer

    /// `sql`'s cached statement on `db`.
    init(_ db: Database, _ sql: String) throws {
        guard let connection = db.sqliteConnection else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "a closed connection") }
        statement = try db.cachedStatement(sql: sql).sqliteStatement
        self.connection = connection
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Binds `values` to parameters 1, 2, … in order.
    func bind(_ values: Value...) throws {
        sqlite3_reset(statement)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(statement, index)
            case .integer(let number): code = sqlite3_bind_int64(statement, index, number)
            case .text(var text):
                code = text.withUTF8 { bytes in
                    // An empty buffer may have no address, which SQLite would read as NULL.
                    guard let base = bytes.baseAddress, bytes.count > 0 else {
                        return sqlite3_bind_text(statement, index, "", 0, Self.transient)
                    }
                    return sqlite3_bind_text64(statement, index, base, sqlite3_uint64(bytes.count), Self.transient, UInt8(SQLITE_UTF8))
                }
            case .blob(let data):
                code = data.withUnsafeBytes { bytes in
                    sqlite3_bind_blob64(
                        statement, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(bytes.count), Self.transient)
                }
            }
            try check(code)
        }
    }

    enum Value {
        case null
        case integer(Int64)
        case text(String)
        case blob(Data)

        static func optional(_ text: String?) -> Value { text.map { .text($0) } ?? .null }
        static func optional(_ data: Data?) -> Value { data.map { .blob($0) } ?? .null }
        static func optional(_ number: Int64?) -> Value { number.map { .integer($0) } ?? .null }
        static func flag(_ value: Bool) -> Value { .integer(value ? 1 : 0) }
    }

    /// Steps once: true for a row (read it with `integer(_:)`), false when done.
    func step() throws -> Bool {
        let code = sqlite3_step(statement)
        if code == SQLITE_ROW { return true }
        defer { sqlite3_reset(statement) }
        if code == SQLITE_DONE { return false }
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)))
    }

    /// Runs it to its end.
    func run() throws {
        while try step() {}
    }

    /// Runs `body` in an immediate transaction, committed if it returns and rolled back
    /// if it throws: what GRDB's `write` does, with the two statements cached instead of
    /// parsed for every commit.
    static func transaction<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try RawStatement(db, "BEGIN IMMEDIATE").run()
        do {
            let result = try body()
            try RawStatement(db, "COMMIT").run()
            return result
        } catch {
            // Some errors end the transaction themselves; then there is nothing to undo.
            if db.isInsideTransaction { try RawStatement(db, "ROLLBACK").run() }
            throw error
        }
    }

    /// Column `index` of the current row.
    func integer(_ index: Int32) -> Int64 {
        sqlite3_column_int64(statement, index)
    }

    /// Done with the current row (and any after it).
    func reset() {
        sqlite3_reset(statement)
    }

    private func check(_ code: Int32) throws {
        guard code != SQLITE_OK else { return }
        sqlite3_reset(statement)
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)))
    }
}
