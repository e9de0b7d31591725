// What every subcommand needs: the loaded inventory, the state paths, and a
// uniform way to turn failures into messages and exit codes.
#pragma once

#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "common/clock.h"
#include "common/diagnostics.h"
#include "common/log.h"
#include "controller/state/filesystem_check.h"
#include "controller/state/state_store.h"
#include "inventory/model.h"

namespace clusterctl {

struct GlobalOptions {
  std::string state_dir;  // --state
  bool json = false;      // --json
  std::string output = "table";  // -o: table (fits the terminal), wide or json (status, validate)
  std::string command_line;  // for the lock holder record and runs table
};

// Process-wide services, real in main() and replaceable in tests.
struct Services {
  const Clock* clock = nullptr;
  const FilesystemProbe* filesystem = nullptr;
  std::ostream* out = &std::cout;
  std::ostream* err = &std::cerr;
  // Diagnostics (errors, warnings, notes, progress messages), never what a
  // command prints on `out`. Null: the command line makes one on `err`.
  Logger* log = nullptr;
};

// Each diagnostic at its severity, sorted by file, line and column.
void LogDiagnostics(const Diagnostics& diagnostics, Logger& log);

// Loads the inventory; on failure prints every diagnostic to `err` and
// returns nullopt (the caller exits 2). Warnings are printed either way when
// `print_warnings` is set.
std::optional<Inventory> LoadInventoryOrReport(const std::string& path, const Services& services,
                                               bool print_warnings);

// LoadInventoryOrReport, and the inventory checked against the role catalog
// (every variable declared, typed, allowed; LoadCheckedInventory), for
// commands that act on nodes. Every problem of both is printed in one pass.
// `extra_vars`: -e arguments, applied before the checks.
std::optional<Inventory> LoadCheckedInventoryOrReport(const std::string& path, const std::vector<std::string>& extra_vars,
                                                      const Services& services);

StatePaths StatePathsFor(const Inventory& inventory, const GlobalOptions& options);

// Opens the state for writing. On failure prints the reason and sets
// `exit_code` (3 when another run holds the state, 1 otherwise).
std::unique_ptr<StateStore> OpenStateForWritingOrReport(const StatePaths& paths, const GlobalOptions& options,
                                                        const Services& services, int& exit_code);

}  // namespace clusterctl
