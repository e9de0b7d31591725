// `clusterctl checks [--json]`: the validation catalogue (what `validate
// --checks` selects from): each check's name, scope and summary, in report
#include "controller/cli/command_values.h"
// order, from controller/validate's own CheckCatalogue.
#pragma once

#include <ostream>

namespace clusterctl {

// A table (CHECK, SCOPE, WHAT IT ASSERTS), or with `json` one document
// {"checks": [{"name", "scope", "summary"}...]}. Returns the exit code (0).
int PrintCheckCatalogue(bool json, std::ostream& out);

// `checks` (command_values.h).
void AddChecksCommand(CLI::App& app, CommandValues& values);

}  // namespace clusterctl
