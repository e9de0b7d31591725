#include "controller/remote/agent_launch.h"

#include "common/shell_quote.h"

namespace clusterctl {
namespace {

std::string SudoPrefix(SudoMode sudo) {
  switch (sudo) {
    case SudoMode::kNone: return "";
    case SudoMode::kNoPassword: return "sudo -n -- ";
    case SudoMode::kPassword: return "sudo -S -p " + ShellQuote(kSudoPrompt) + " -- ";
  }
  return "";
}

}  // namespace

std::string UploadStagingPath(const AgentBinary& binary) {
  return ".cache/clusterctl-agent-" + binary.sha256.substr(0, 16) + ".upload";
}

std::string AgentStartCommand(const AgentBinaries& binaries, SudoMode sudo) {
  std::string script = "case \"$(uname -m)\" in ";
  for (const auto& [arch, binary] : binaries.all()) {
    script += ShellQuote(arch) + ") a=" + ShellQuote(binary.RemotePath()) + " ;; ";
  }
  script +=
      "*) echo \"clusterctl-agent: no build for $(uname -m)\" >&2; exit 126 ;; esac; "
      "[ -x \"$a\" ] || { echo \"clusterctl-agent: missing $(uname -m)\" >&2; exit 125; }; "
      "exec " + SudoPrefix(sudo) + "\"$a\"";
  return script;
}

std::string AgentUploadCommand(const AgentBinary& binary, SudoMode sudo) {
  const std::string size = std::to_string(binary.size);
  const std::string check = "[ \"$(wc -c < \"$t\")\" -eq " + size +
                            " ] || { rm -f \"$t\"; echo 'clusterctl-agent: upload truncated' >&2; exit 1; }; ";
  if (sudo == SudoMode::kNone) {
    return "set -e; umask 022; d=" + ShellQuote(binary.RemoteDirectory()) + "; mkdir -p \"$d\"; t=\"$d/.upload.$$\"; "
           "cat > \"$t\"; " + check + "chmod 0755 \"$t\"; mv -f \"$t\" \"$d/clusterctl-agent\"";
  }
  std::string upload = "set -e; umask 077; mkdir -p \"$HOME/.cache\"; t=\"$HOME/\"" +
                       ShellQuote(UploadStagingPath(binary)) + "; cat > \"$t\"; " + check;
  if (sudo == SudoMode::kPassword) return upload;  // installed by a second command that carries the password
  return upload + AgentInstallFromHomeCommand(binary, sudo);
}

std::string AgentInstallFromHomeCommand(const AgentBinary& binary, SudoMode sudo) {
  return "t=\"$HOME/\"" + ShellQuote(UploadStagingPath(binary)) + "; " + SudoPrefix(sudo) +
         "install -D -m 0755 -o root -g root \"$t\" " + ShellQuote(binary.RemotePath()) + " && rm -f \"$t\"";
}

}  // namespace clusterctl
