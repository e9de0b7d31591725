// Thin RAII adapter around the SQLite C API; the only file that calls sqlite3_*.
//
// Thread-safety: a SqliteDb and its statements belong to one thread at a time.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace clusterctl {

class SqliteStatement {
 public:
  SqliteStatement(SqliteStatement&& other) noexcept : db_(other.db_), stmt_(other.stmt_) { other.stmt_ = nullptr; }
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  // Parameters are 1-based, as in SQLite.
  SqliteStatement& Bind(int index, int64_t value);
  SqliteStatement& Bind(int index, std::string_view text);
  SqliteStatement& Bind(int index, const char* text) { return Bind(index, std::string_view(text)); }
  SqliteStatement& Bind(int index, const std::string& text) { return Bind(index, std::string_view(text)); }
  SqliteStatement& Bind(int index, const std::optional<std::string>& text);
  SqliteStatement& BindNull(int index);
  SqliteStatement& BindBlob(int index, std::string_view bytes);

  // Advances; true when a row is available, false when done.
  Result<bool> Step();
  // Steps through every row, calling on_row while the row's columns can be read.
  Status ForEachRow(const std::function<void()>& on_row);
  // Runs a statement that returns no rows.
  Status Run();
  void Reset();

  int64_t Int64(int column) const;
  std::string Text(int column) const;
  std::optional<std::string> OptionalText(int column) const;
  std::optional<int64_t> OptionalInt64(int column) const;
  bool IsNull(int column) const;

 private:
  friend class SqliteDb;
  SqliteStatement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}

  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

class SqliteDb {
 public:
  enum class Mode { kReadWriteCreate, kReadOnly };

  static Result<std::unique_ptr<SqliteDb>> Open(const std::string& path, Mode mode);
  ~SqliteDb();

  // Runs one or more statements that return no rows.
  Status Exec(const std::string& sql);
  Result<SqliteStatement> Prepare(std::string_view sql);
  int64_t LastInsertId() const;
  int Changes() const;

  // Scalar helpers for PRAGMA-style queries.
  Result<int64_t> QueryInt(const std::string& sql);
  Result<std::string> QueryText(const std::string& sql);

 private:
  explicit SqliteDb(sqlite3* db) : db_(db) {}
  sqlite3* db_;
};

// BEGIN IMMEDIATE ... COMMIT; rolls back in the destructor unless committed.
// IMMEDIATE takes SQLite's write lock up front, so a writer never fails
// half-way with SQLITE_BUSY after reading.
class SqliteTransaction {
 public:
  static Result<std::unique_ptr<SqliteTransaction>> Begin(SqliteDb& db);
  ~SqliteTransaction();
  Status Commit();

 private:
  explicit SqliteTransaction(SqliteDb& db) : db_(db) {}
  SqliteDb& db_;
  bool done_ = false;
};

}  // namespace clusterctl
