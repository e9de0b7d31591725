// Stored words: the TEXT the state keeps for its outcome enums
// (docs/state.md): runs.status, hosts.status, steps.status,
// validations.result and validations.scope.
// The one place a stored word meets its enum; the row mapping
// (row_mapping.h) binds an enum as its word and reads a word back through
// here, so no other code compares a stored word as a string. The words
// never change: an existing state.db must keep reading.
#pragma once

#include <string_view>

#include "common/check_outcome.h"
#include "common/status.h"

namespace clusterctl {

// runs.status: how a run ended, or `running`.
enum class RunStatus { kRunning, kOk, kFailed, kInterrupted };

// steps.status: a step's outcome in a deploy (the engine's events carry it
// too, deploy_events.h). A plan's kWouldChange is never stored.
enum class StepStatus { kOk, kChanged, kFailed, kSkipped, kWouldChange };

// hosts.status: the outcome of the host's last deploy that reached a verdict,
// `never` before one, `removed` once a deploy removed it from the cluster.
enum class HostStatus { kNever, kOk, kFailed, kUnreachable, kRemoved };

std::string_view StoredWord(RunStatus status);
std::string_view StoredWord(HostStatus status);
std::string_view StoredWord(StepStatus status);
std::string_view StoredWord(CheckOutcome outcome);
std::string_view StoredWord(CheckScope scope);

// Reads `word` into `out`; an unknown word is Corruption naming the column,
// the word and the words this build knows (a state edited by hand, or
// written by a newer clusterctl), and leaves `out` unchanged.
Status FromStoredWord(std::string_view word, RunStatus& out);
Status FromStoredWord(std::string_view word, HostStatus& out);
Status FromStoredWord(std::string_view word, StepStatus& out);
Status FromStoredWord(std::string_view word, CheckOutcome& out);
Status FromStoredWord(std::string_view word, CheckScope& out);

}  // namespace clusterctl
