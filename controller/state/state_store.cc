#include "controller/state/state_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

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

StateStore::StateStore(StatePaths paths, std::unique_ptr<OpenState> open,
                       std::optional<LockHolder> cleared_stale_holder)
    : RunRecords(*open),
      EventRecords(*open),
      HostRecords(*open),
      HostKeyRecords(*open),
      FactsRecords(*open),
      StepRecords(*open),
      IntentRecords(*open),
      SecretRecords(*open),
      ValidationRecords(*open),
      paths_(std::move(paths)),
      cleared_stale_holder_(std::move(cleared_stale_holder)),
      open_(std::move(open)) {}

Result<std::unique_ptr<StateStore>> StateStore::OpenForWriting(const StatePaths& paths, const WriterOptions& options) {
  CLUSTERCTL_RETURN_IF_ERROR(PrepareStateDirectories(paths, *options.probe));

  auto open = std::make_unique<OpenState>();
  open->clock = options.clock;
  auto acquired = StateLock::Acquire(paths.lock(), LockHolder::Current(options.clock->NowMs(), options.command));
  if (!acquired.ok()) {
    if (acquired.status().code() == Status::Code::kBusy) {
      return Status::Busy("the state " + paths.dir + " is " + acquired.status().message());
    }
    return acquired.status();
  }
  open->lock = std::move(acquired->lock);

  auto db = SqliteDb::Open(paths.database(), SqliteDb::Mode::kReadWriteCreate);
  if (!db.ok()) return db.status();
  open->db = std::move(db).value();
  CLUSTERCTL_RETURN_IF_ERROR(::chmod(paths.database().c_str(), 0600) == 0
                                 ? Status::Ok()
                                 : Status::IoError("cannot chmod " + paths.database()));
  CLUSTERCTL_RETURN_IF_ERROR(Damaged(paths, ConfigureConnection(*open->db, true)));
  CLUSTERCTL_RETURN_IF_ERROR(Damaged(paths, CheckIntegrity(*open->db)));
  CLUSTERCTL_RETURN_IF_ERROR(Damaged(paths, MigrateSchema(*open->db)));
  return std::unique_ptr<StateStore>(new StateStore(paths, std::move(open), acquired->cleared_stale_holder));
}

Result<std::unique_ptr<StateStore>> StateStore::OpenSideConnection() const {
  auto open = std::make_unique<OpenState>();
  open->clock = open_->clock;
  auto db = SqliteDb::Open(paths_.database(), SqliteDb::Mode::kReadWriteCreate);
  if (!db.ok()) return db.status();
  open->db = std::move(db).value();
  CLUSTERCTL_RETURN_IF_ERROR(ConfigureConnection(*open->db, false));
  return std::unique_ptr<StateStore>(new StateStore(paths_, std::move(open), std::nullopt));
}

Result<std::unique_ptr<StateStore>> StateStore::OpenForReading(const StatePaths& paths, const FilesystemProbe& probe) {
  if (!Exists(paths.database())) return Status::NotFound("no state yet in " + paths.dir);
  CLUSTERCTL_RETURN_IF_ERROR(CheckStateFilesystem(paths.dir, probe));
  auto open = std::make_unique<OpenState>();
  auto db = SqliteDb::Open(paths.database(), SqliteDb::Mode::kReadOnly);
  if (!db.ok()) return db.status();
  open->db = std::move(db).value();
  CLUSTERCTL_RETURN_IF_ERROR(Damaged(paths, ConfigureConnection(*open->db, false)));
  Result<int> version = StoredSchemaVersion(*open->db);
  if (!version.ok()) return Damaged(paths, version.status());
  if (*version != CurrentSchemaVersion()) {
    return Status::FailedPrecondition("the state database " + paths.database() + " has schema version " +
                                      std::to_string(*version) + " but this clusterctl uses version " +
                                      std::to_string(CurrentSchemaVersion()) +
                                      (*version < CurrentSchemaVersion()
                                           ? "; any writing command (deploy, facts) upgrades it"
                                           : "; it was written by a newer clusterctl"));
  }
  return std::unique_ptr<StateStore>(new StateStore(paths, std::move(open), std::nullopt));
}

}  // namespace clusterctl
