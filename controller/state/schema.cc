#include "controller/state/schema.h"

#include <string>
#include <vector>

namespace clusterctl {
namespace {

struct Migration {
  int version;  // the version this migration produces
  const char* description;
  const char* sql;
};

// The SQL of each migration as it shipped, one constant per version.

// Version 1.
constexpr const char* kInitialSchema = R"sql(
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE runs (
  id              INTEGER PRIMARY KEY,
  kind            TEXT    NOT NULL,
  command         TEXT    NOT NULL,
  controller_host TEXT    NOT NULL,
  pid             INTEGER NOT NULL,
  started_at      INTEGER NOT NULL,
  finished_at     INTEGER,
  status          TEXT    NOT NULL DEFAULT 'running'
                  CHECK (status IN ('running', 'ok', 'failed', 'interrupted')),
  inventory_hash  TEXT,
  summary         TEXT
);
CREATE TABLE hosts (
  name                 TEXT PRIMARY KEY,
  address              TEXT,
  status               TEXT    NOT NULL DEFAULT 'never'
                       CHECK (status IN ('never', 'ok', 'failed', 'unreachable', 'removed')),
  in_inventory         INTEGER NOT NULL DEFAULT 1,
  first_seen_at        INTEGER NOT NULL,
  last_run_id          INTEGER REFERENCES runs(id),
  last_status_at       INTEGER,
  last_error           TEXT,
  host_key_type        TEXT,
  host_key_sha256      TEXT,
  host_key_accepted_at INTEGER,
  drifted              INTEGER NOT NULL DEFAULT 0,
  removed_at           INTEGER,
  left_behind          TEXT
);
CREATE TABLE steps (
  run_id         INTEGER NOT NULL REFERENCES runs(id),
  host           TEXT    NOT NULL,
  role           TEXT    NOT NULL,
  step_id        TEXT    NOT NULL,
  input_hash     TEXT    NOT NULL,
  status         TEXT    NOT NULL CHECK (status IN ('ok', 'changed', 'failed', 'skipped')),
  changed        INTEGER NOT NULL DEFAULT 0,
  started_at     INTEGER NOT NULL,
  finished_at    INTEGER,
  output_summary TEXT,
  PRIMARY KEY (run_id, host, role, step_id)
);
CREATE INDEX steps_by_identity ON steps (host, role, step_id, run_id);
CREATE TABLE intents (
  id             INTEGER PRIMARY KEY,
  host           TEXT    NOT NULL,
  kind           TEXT    NOT NULL,
  target         TEXT    NOT NULL,
  reason         TEXT    NOT NULL,
  created_run_id INTEGER REFERENCES runs(id),
  created_at     INTEGER NOT NULL,
  done_run_id    INTEGER REFERENCES runs(id),
  done_at        INTEGER
);
CREATE UNIQUE INDEX intents_open ON intents (host, kind, target) WHERE done_at IS NULL;
CREATE TABLE facts (
  host        TEXT PRIMARY KEY,
  gathered_at INTEGER NOT NULL,
  run_id      INTEGER REFERENCES runs(id),
  facts       TEXT    NOT NULL
);
CREATE TABLE validations (
  id         INTEGER PRIMARY KEY,
  run_id     INTEGER NOT NULL REFERENCES runs(id),
  check_name TEXT    NOT NULL,
  scope      TEXT    NOT NULL CHECK (scope IN ('cluster', 'node', 'pair')),
  subject    TEXT    NOT NULL,
  result     TEXT    NOT NULL CHECK (result IN ('pass', 'fail', 'skip')),
  measured   TEXT,
  threshold  TEXT,
  detail     TEXT,
  evidence   TEXT,
  at         INTEGER NOT NULL
);
CREATE INDEX validations_by_subject ON validations (subject, run_id);
CREATE TABLE events (
  id      INTEGER PRIMARY KEY,
  run_id  INTEGER REFERENCES runs(id),
  at      INTEGER NOT NULL,
  host    TEXT,
  level   TEXT    NOT NULL CHECK (level IN ('info', 'warning', 'error')),
  kind    TEXT    NOT NULL,
  message TEXT    NOT NULL
);
CREATE INDEX events_by_run ON events (run_id);
)sql";

// Version 2.
constexpr const char* kJumpHostKeys = R"sql(
CREATE TABLE jump_host_keys (
  endpoint    TEXT PRIMARY KEY,
  key_type    TEXT    NOT NULL,
  key_sha256  TEXT    NOT NULL,
  accepted_at INTEGER NOT NULL
);
)sql";

// Version 3.
constexpr const char* kIntentDetailAndFileBackups = R"sql(
ALTER TABLE intents ADD COLUMN detail TEXT;
CREATE TABLE file_backups (
  id      INTEGER PRIMARY KEY,
  run_id  INTEGER NOT NULL REFERENCES runs(id),
  host    TEXT    NOT NULL,
  path    TEXT    NOT NULL,
  content BLOB    NOT NULL,
  at      INTEGER NOT NULL
);
CREATE INDEX file_backups_by_path ON file_backups (host, path, id);
)sql";

// Version 4.
constexpr const char* kSecretNames = R"sql(
CREATE TABLE secrets (
  name        TEXT PRIMARY KEY,
  recorded_at INTEGER NOT NULL,
  run_id      INTEGER REFERENCES runs(id)
);
)sql";

// Version 5.
constexpr const char* kRunExtraVars = R"sql(
ALTER TABLE runs ADD COLUMN extra_vars TEXT;
)sql";

// Version 6.
constexpr const char* kReachability = R"sql(
ALTER TABLE hosts ADD COLUMN unreachable_since INTEGER;
ALTER TABLE hosts ADD COLUMN unreachable_error TEXT;
)sql";

// Append-only: never edit a migration that has shipped; add a new one.
const std::vector<Migration>& Migrations() {
  static const std::vector<Migration> migrations = {
      {1, "initial schema: runs, hosts, steps, intents, facts, validations, events", kInitialSchema},
      {2, "host keys of jump hosts (bastions), which are not inventory hosts", kJumpHostKeys},
      {3, "progress detail of intents; backups of replaced files", kIntentDetailAndFileBackups},
      {4, "names of the secrets in secrets/ (never their values), so a deleted one is noticed", kSecretNames},
      {5, "the variables a run was given with -e/--extra-vars", kRunExtraVars},
      {6, "reachability whatever the command (plan, facts, validate too): since when connections fail", kReachability},
  };
  return migrations;
}

}  // namespace

int CurrentSchemaVersion() { return Migrations().back().version; }

Result<int> StoredSchemaVersion(SqliteDb& db) {
  Result<int64_t> version = db.QueryInt("PRAGMA user_version");
  if (!version.ok()) return version.status();
  return static_cast<int>(*version);
}

Status MigrateSchema(SqliteDb& db) {
  Result<int> stored = StoredSchemaVersion(db);
  if (!stored.ok()) return stored.status();
  if (*stored > CurrentSchemaVersion()) {
    return Status::FailedPrecondition("the state database has schema version " + std::to_string(*stored) +
                                      ", written by a newer clusterctl; this build knows up to version " +
                                      std::to_string(CurrentSchemaVersion()) + ". Upgrade clusterctl.");
  }
  for (const Migration& m : Migrations()) {
    if (m.version <= *stored) continue;
    auto transaction = SqliteTransaction::Begin(db);
    if (!transaction.ok()) return transaction.status();
    // Re-read inside the write transaction: another process may have migrated.
    Result<int> now = StoredSchemaVersion(db);
    if (!now.ok()) return now.status();
    if (*now >= m.version) continue;
    CLUSTERCTL_RETURN_IF_ERROR(db.Exec(m.sql).WithContext(std::string("migration to version ") +
                                                          std::to_string(m.version) + " (" + m.description + ")"));
    CLUSTERCTL_RETURN_IF_ERROR(db.Exec("PRAGMA user_version = " + std::to_string(m.version)));
    CLUSTERCTL_RETURN_IF_ERROR((*transaction)->Commit());
  }
  return Status::Ok();
}

}  // namespace clusterctl
