// The shell commands the controller sends over SSH to start and install the
// agent. These are the only shell strings clusterctl builds; they contain
// constants, hex digests and sizes, and every variable part is quoted.
#pragma once

#include <string>

#include "controller/remote/agent_binaries.h"
#include "inventory/connection.h"

namespace clusterctl {

enum class SudoMode { kNone, kNoPassword, kPassword };

// Exit codes of the start command besides the agent's own.
inline constexpr int kAgentMissingExit = 125;  // stderr: "clusterctl-agent: missing <arch>"
inline constexpr int kAgentNoBuildExit = 126;  // stderr: "clusterctl-agent: no build for <arch>"

// sudo's prompt with -S (on stderr): the password is written only after it
// appears, so a sudo that needs none (NOPASSWD, cached credentials) never
// leaves it in the pipe for the agent to read.
inline constexpr const char* kSudoPrompt = "[clusterctl] sudo password:";

// Starts the agent for whatever architecture the node has, as root.
std::string AgentStartCommand(const AgentBinaries& binaries, SudoMode sudo);

// Installs `binary` from stdin (exactly binary.size bytes, checked). With
// sudo, the upload lands in the login user's home first and `install` moves
// it into place as root; kPassword expects the password as the first line of
// a second command (AgentInstallFromHomeCommand), so this one never needs it.
std::string AgentUploadCommand(const AgentBinary& binary, SudoMode sudo);
std::string AgentInstallFromHomeCommand(const AgentBinary& binary, SudoMode sudo);
std::string UploadStagingPath(const AgentBinary& binary);  // relative to $HOME

}  // namespace clusterctl
