#include "controller/state/sqlite.h"

namespace clusterctl {
namespace {

Status SqliteError(sqlite3* db, const std::string& what) {
  const int code = sqlite3_extended_errcode(db);
  std::string message = what + ": " + sqlite3_errmsg(db);
  if ((code & 0xFF) == SQLITE_BUSY || (code & 0xFF) == SQLITE_LOCKED) return Status::Busy(message);
  if ((code & 0xFF) == SQLITE_CORRUPT || (code & 0xFF) == SQLITE_NOTADB) return Status::Corruption(message);
  if ((code & 0xFF) == SQLITE_READONLY || (code & 0xFF) == SQLITE_PERM || (code & 0xFF) == SQLITE_CANTOPEN) {
    return Status::PermissionDenied(message);
  }
  return Status::IoError(message);
}

}  // namespace

SqliteStatement::~SqliteStatement() {
  if (stmt_) sqlite3_finalize(stmt_);
}

SqliteStatement& SqliteStatement::Bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

SqliteStatement& SqliteStatement::Bind(int index, std::string_view text) {
  sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  return *this;
}

SqliteStatement& SqliteStatement::Bind(int index, const std::optional<std::string>& text) {
  return text ? Bind(index, std::string_view(*text)) : BindNull(index);
}

SqliteStatement& SqliteStatement::BindNull(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

SqliteStatement& SqliteStatement::BindBlob(int index, std::string_view bytes) {
  sqlite3_bind_blob(stmt_, index, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
  return *this;
}

Result<bool> SqliteStatement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(db_, "sqlite step");
}

Status SqliteStatement::ForEachRow(const std::function<void()>& on_row) {
  while (true) {
    Result<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::Ok();
    on_row();
  }
}

Status SqliteStatement::Run() {
  Result<bool> row = Step();
  if (!row.ok()) return row.status();
  return Status::Ok();
}

void SqliteStatement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t SqliteStatement::Int64(int column) const { return sqlite3_column_int64(stmt_, column); }

std::string SqliteStatement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  int size = sqlite3_column_bytes(stmt_, column);
  return text ? std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(size)) : std::string();
}

std::optional<std::string> SqliteStatement::OptionalText(int column) const {
  if (IsNull(column)) return std::nullopt;
  return Text(column);
}

std::optional<int64_t> SqliteStatement::OptionalInt64(int column) const {
  if (IsNull(column)) return std::nullopt;
  return Int64(column);
}

bool SqliteStatement::IsNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

Result<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path, Mode mode) {
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_NOMUTEX | (mode == Mode::kReadOnly ? SQLITE_OPEN_READONLY
                                                             : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    Status status = SqliteError(db, "cannot open state database " + path);
    sqlite3_close(db);
    return status;
  }
  sqlite3_extended_result_codes(db, 1);
  // Readers may meet a checkpoint in progress; wait briefly rather than fail.
  sqlite3_busy_timeout(db, 5000);
  return std::unique_ptr<SqliteDb>(new SqliteDb(db));
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

Status SqliteDb::Exec(const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    std::string message = error ? error : "unknown error";
    sqlite3_free(error);
    Status status = SqliteError(db_, "sqlite");
    return Status(status).WithContext("executing SQL (" + message + ")");
  }
  return Status::Ok();
}

Result<SqliteStatement> SqliteDb::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK) {
    return SqliteError(db_, "preparing SQL");
  }
  return SqliteStatement(db_, stmt);
}

int64_t SqliteDb::LastInsertId() const { return sqlite3_last_insert_rowid(db_); }
int SqliteDb::Changes() const { return sqlite3_changes(db_); }

Result<int64_t> SqliteDb::QueryInt(const std::string& sql) {
  auto stmt = Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  auto row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) return Status::NotFound("no row for: " + sql);
  return stmt->Int64(0);
}

Result<std::string> SqliteDb::QueryText(const std::string& sql) {
  auto stmt = Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  auto row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) return Status::NotFound("no row for: " + sql);
  return stmt->Text(0);
}

Result<std::unique_ptr<SqliteTransaction>> SqliteTransaction::Begin(SqliteDb& db) {
  CLUSTERCTL_RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE"));
  return std::unique_ptr<SqliteTransaction>(new SqliteTransaction(db));
}

SqliteTransaction::~SqliteTransaction() {
  if (!done_) db_.Exec("ROLLBACK");
}

Status SqliteTransaction::Commit() {
  done_ = true;
  return db_.Exec("COMMIT");
}

}  // namespace clusterctl
