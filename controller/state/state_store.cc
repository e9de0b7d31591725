#include "controller/state/state_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "common/json_text.h"
#include "controller/state/row_mapping.h"
#include "controller/state/schema.h"

namespace clusterctl {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// The deepest existing ancestor of `path` (for the file system check before
// anything is created).
std::string ExistingAncestor(std::string path) {
  while (!path.empty() && !Exists(path)) {
    std::string parent = std::filesystem::path(path).parent_path().string();
    if (parent == path) break;
    path = parent;
  }
  return path.empty() ? "." : path;
}

// A directory only this user can change: created 0700 when missing. An
// existing one is never chmod'ed unless `owned_subdirectory` (secrets/,
// which clusterctl made): `--state /tmp` must not turn /tmp into 0700. It
// must belong to this user and, when it is not clusterctl's own, not be
// writable by others (who could swap the lock, the database or secrets/).
Status MakePrivateDirectory(const std::string& path, bool owned_subdirectory) {
  std::error_code ec;
  const std::string parent = std::filesystem::path(path).parent_path().string();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (::mkdir(path.c_str(), 0700) == 0) return Status::Ok();
  if (errno != EEXIST) return Status::IoError("cannot create " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Status::FailedPrecondition(path + " exists and is not a directory (a symbolic link is refused too)");
  }
  if (st.st_uid != ::geteuid()) {
    return Status::FailedPrecondition(path + " belongs to uid " + std::to_string(st.st_uid) +
                                      ", not to the user running clusterctl (uid " + std::to_string(::geteuid()) +
                                      "); use a directory of your own for the state");
  }
  if (owned_subdirectory) {
    if ((st.st_mode & 07777) != 0700 && ::chmod(path.c_str(), 0700) != 0) {
      return Status::IoError("cannot set mode 0700 on " + path + ": " + std::strerror(errno));
    }
    return Status::Ok();
  }
  if ((st.st_mode & 022) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return Status::FailedPrecondition(path + " is writable by others (mode " + mode +
                                      "); the state needs a directory only you can change (e.g. a new one: "
                                      "--state " + path + "/clusterctl-state)");
  }
  return Status::Ok();
}

// SQLite's own word for a damaged file becomes what the admin should do.
Status Damaged(const StatePaths& paths, Status status) {
  const std::string& m = status.message();
  if (status.ok() || (m.find("not a database") == std::string::npos && m.find("malformed") == std::string::npos &&
                      m.find("corrupt") == std::string::npos && m.find("integrity") == std::string::npos)) {
    return status;
  }
  return Status::Corruption("the state database " + paths.database() + " is damaged (" + m +
                            "); nothing was changed. Restore it from a backup, or move " + paths.dir +
                            " aside and keep its secrets/ for a new state: the next deploy then checks every node");
}

// A quick structural check before a writer relies on the file (cheap:
// SQLite's quick_check skips the slow index cross-checks).
Status CheckIntegrity(SqliteDb& db) {
  Result<std::string> verdict = db.QueryText("PRAGMA quick_check");
  if (!verdict.ok()) return verdict.status();
  if (*verdict != "ok") return Status::Corruption("integrity check: " + *verdict);
  return Status::Ok();
}

Status ConfigureConnection(SqliteDb& db, bool writer) {
  if (writer) {
    Result<std::string> mode = db.QueryText("PRAGMA journal_mode = WAL");
    if (!mode.ok()) return mode.status();
    if (*mode != "wal") return Status::FailedPrecondition("SQLite refused WAL mode (journal_mode=" + *mode + ")");
  }
  CLUSTERCTL_RETURN_IF_ERROR(db.Exec("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;"));
  return Status::Ok();
}

}  // namespace

const char* ToString(RunStatus status) {
  switch (status) {
    case RunStatus::kRunning: return "running";
    case RunStatus::kOk: return "ok";
    case RunStatus::kFailed: return "failed";
    case RunStatus::kInterrupted: return "interrupted";
  }
  return "?";
}

StatePaths StatePaths::For(const std::string& inventory_dir, const std::string& override_dir) {
  if (!override_dir.empty()) return {std::filesystem::absolute(override_dir).lexically_normal().string()};
  return {inventory_dir + "/.clusterctl"};
}

Status PrepareStateDirectories(const StatePaths& paths, const FilesystemProbe& probe) {
  CLUSTERCTL_RETURN_IF_ERROR(CheckStateFilesystem(ExistingAncestor(paths.dir), probe));
  CLUSTERCTL_RETURN_IF_ERROR(MakePrivateDirectory(paths.dir, /*owned_subdirectory=*/false));
  CLUSTERCTL_RETURN_IF_ERROR(CheckStateFilesystem(paths.dir, probe));
  return MakePrivateDirectory(paths.secrets(), /*owned_subdirectory=*/true);
}

Result<std::unique_ptr<StateStore>> StateStore::OpenForWriting(const StatePaths& paths, const WriterOptions& options) {
  CLUSTERCTL_RETURN_IF_ERROR(PrepareStateDirectories(paths, *options.probe));

  std::unique_ptr<StateStore> store(new StateStore());
  store->paths_ = paths;
  store->clock_ = options.clock;
  auto acquired = StateLock::Acquire(paths.lock(), LockHolder::Current(options.clock->NowMs(), options.command));
  if (!acquired.ok()) {
    if (acquired.status().code() == Status::Code::kBusy) {
      return Status::Busy("the state " + paths.dir + " is " + acquired.status().message());
    }
    return acquired.status();
  }
  store->lock_ = std::move(acquired->lock);
  store->cleared_stale_holder_ = acquired->cleared_stale_holder;

  auto db = SqliteDb::Open(paths.database(), SqliteDb::Mode::kReadWriteCreate);
  if (!db.ok()) return db.status();
  store->db_ = std::move(db).value();
  CLUSTERCTL_RETURN_IF_ERROR(::chmod(paths.database().c_str(), 0600) == 0
                                 ? Status::Ok()
                                 : Status::IoError("cannot chmod " + paths.database()));
  CLUSTERCTL_RETURN_IF_ERROR(Damaged(paths, ConfigureConnection(*store->db_, true)));
  CLUSTERCTL_RETURN_IF_ERROR(Damaged(paths, CheckIntegrity(*store->db_)));
  CLUSTERCTL_RETURN_IF_ERROR(Damaged(paths, MigrateSchema(*store->db_)));
  return store;
}

Result<std::unique_ptr<StateStore>> StateStore::OpenSideConnection() const {
  std::unique_ptr<StateStore> side(new StateStore());
  side->paths_ = paths_;
  side->clock_ = clock_;
  auto db = SqliteDb::Open(paths_.database(), SqliteDb::Mode::kReadWriteCreate);
  if (!db.ok()) return db.status();
  side->db_ = std::move(db).value();
  CLUSTERCTL_RETURN_IF_ERROR(ConfigureConnection(*side->db_, false));
  return side;
}

Result<std::unique_ptr<StateStore>> StateStore::OpenForReading(const StatePaths& paths, const FilesystemProbe& probe) {
  if (!Exists(paths.database())) return Status::NotFound("no state yet in " + paths.dir);
  CLUSTERCTL_RETURN_IF_ERROR(CheckStateFilesystem(paths.dir, probe));
  std::unique_ptr<StateStore> store(new StateStore());
  store->paths_ = paths;
  auto db = SqliteDb::Open(paths.database(), SqliteDb::Mode::kReadOnly);
  if (!db.ok()) return db.status();
  store->db_ = std::move(db).value();
  CLUSTERCTL_RETURN_IF_ERROR(Damaged(paths, ConfigureConnection(*store->db_, false)));
  Result<int> version = StoredSchemaVersion(*store->db_);
  if (!version.ok()) return Damaged(paths, version.status());
  if (!version.ok()) return version.status().WithContext("reading " + paths.database());
  if (*version != CurrentSchemaVersion()) {
    return Status::FailedPrecondition("the state database " + paths.database() + " has schema version " +
                                      std::to_string(*version) + " but this clusterctl uses version " +
                                      std::to_string(CurrentSchemaVersion()) +
                                      (*version < CurrentSchemaVersion()
                                           ? "; any writing command (deploy, facts) upgrades it"
                                           : "; it was written by a newer clusterctl"));
  }
  return store;
}

int64_t StateStore::NowMs() const { return clock_ ? clock_->NowMs() : system_clock_.NowMs(); }

Result<int64_t> StateStore::BeginRun(const std::string& kind, const std::string& command) {
  if (!writable()) return Status::FailedPrecondition("BeginRun needs the state opened for writing");
  auto transaction = SqliteTransaction::Begin(*db_);
  if (!transaction.ok()) return transaction.status();
  CLUSTERCTL_RETURN_IF_ERROR(ExecuteSql(*db_, "UPDATE runs SET status = 'interrupted' WHERE status = 'running'"));
  LockHolder me = LockHolder::Current(NowMs(), command);
  CLUSTERCTL_RETURN_IF_ERROR(
      ExecuteSql(*db_, "INSERT INTO runs (kind, command, controller_host, pid, started_at) VALUES (?, ?, ?, ?, ?)", kind,
                 command, me.host, me.pid, me.started_at_ms));
  int64_t id = db_->LastInsertId();
  CLUSTERCTL_RETURN_IF_ERROR((*transaction)->Commit());
  return id;
}

Status StateStore::FinishRun(int64_t run_id, RunStatus status, const nlohmann::json& summary) {
  return ExecuteSql(*db_, "UPDATE runs SET status = ?, finished_at = ?, summary = ? WHERE id = ?", ToString(status),
                    NowMs(), JsonText(summary), run_id);
}

Status StateStore::RecordRunExtraVars(int64_t run_id, const nlohmann::json& extra_vars) {
  return ExecuteSql(*db_, "UPDATE runs SET extra_vars = ? WHERE id = ?", JsonText(extra_vars), run_id);
}

Result<std::vector<RunRecord>> StateStore::ListRuns(int limit, int64_t only_id) {
  return SelectRows(
      *db_,
      "SELECT id, kind, command, controller_host, pid, started_at, finished_at, status, summary, extra_vars "
      "FROM runs WHERE ? = 0 OR id = ? ORDER BY id DESC LIMIT ?",
      [](const SqliteStatement& row) {
        RunRecord r;
        ReadColumns(row, r.id, r.kind, r.command, r.controller_host, r.pid, r.started_at, r.finished_at, r.status,
                    r.summary, r.extra_vars);
        return r;
      },
      only_id, only_id, limit);
}

Status StateStore::RecordEvent(std::optional<int64_t> run_id, const std::optional<std::string>& host,
                               const std::string& level, const std::string& kind, const std::string& message) {
  return ExecuteSql(*db_, "INSERT INTO events (run_id, at, host, level, kind, message) VALUES (?, ?, ?, ?, ?, ?)",
                    run_id, NowMs(), host, level, kind, message);
}

}  // namespace clusterctl
