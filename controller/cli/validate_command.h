// `clusterctl validate INVENTORY [--limit P] [--checks LIST] [--deadline S] [--level L] [--duration S]
//  [--drain-failed] [--json]`:
// proves the cluster works (docs/validation.md). Exit 0 when every check
// passed (skips allowed), 1 when any failed, 2 for usage or inventory errors
// (nothing contacted). Results go to the state store (history, status).
#pragma once

#include <string>
#include <vector>

#include "controller/cli/command_values.h"
#include "controller/cli/remote_command.h"
#include "controller/state/state_store.h"
#include "controller/validate/check_result.h"
#include "controller/validate/validation_record.h"

namespace clusterctl {

struct ValidateOptions {
  RemoteCommandOptions remote;
  std::vector<std::string> checks;  // --checks (names or prefixes)
  int deadline_s = 900;
  std::string level = "functional";  // --level: functional or acceptance
  int duration_s = 0;                 // --duration: each acceptance measurement's time (0: the variable's)
  bool drain_failed = false;          // --drain-failed
};

// Every check name, in report order (for --help).
const std::vector<std::string>& AllValidationCheckNames();

int RunValidate(const ValidateOptions& options, const GlobalOptions& global, const Services& services);

// The text report: one table row per check, outcome and detail, with the
// hosts in range notation; then every failure with its evidence.
// Unless `wide`, a failure that only says its host is unreachable is
// counted on that host's `reachable` row instead of listed.
void PrintValidationTable(const std::vector<CheckResult>& results, std::ostream& out, bool wide = false);

// The failed checks that were not run because their host is unreachable:
// the table counts them on the host's `reachable` row instead of listing them.
size_t CountNotRunOnUnreachable(const std::vector<CheckResult>& results);

// The acceptance checks' readings, one row per node and check (the nodes
// in range notation never hide whose reading is whose); nothing when the
// results hold none.
void PrintMeasurementTable(const std::vector<CheckResult>& results, std::ostream& out);

// `validate` (command_values.h).
void AddValidateCommand(CLI::App& app, CommandValues& values);

}  // namespace clusterctl
