// State store schema and its forward migrations (docs/state.md).
//
// The schema version is SQLite's `PRAGMA user_version`. Each migration moves
// the database from version N-1 to N inside one transaction; a database newer
// than this build is refused rather than guessed at.
#pragma once

#include "common/status.h"
#include "controller/state/sqlite.h"

namespace clusterctl {

// The version this build writes.
int CurrentSchemaVersion();

// Brings `db` to CurrentSchemaVersion(). REQUIRES: the caller holds the state
// writer lock. A fresh (empty) database is created at the current version.
Status MigrateSchema(SqliteDb& db);

// The version stored in `db` (0 for an empty database).
Result<int> StoredSchemaVersion(SqliteDb& db);

}  // namespace clusterctl
