// What a fake node's commands answer (controller/engine/fake_fleet.h), as
// data: argument-vector prefixes with the output and exit code each stands
// for. A request is answered by the longest prefix of its argv that has an
// answer ({"scontrol", "show", "node", "--json"} before {"scontrol"}); a
// command with none is not canned (the node answers exit 0, no output).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/protocol/messages.h"

namespace clusterctl::testing {

class FakeCommands {
 public:
  // `argv_prefix` answers with `out` on stdout and `exit_code`.
  void Answer(std::vector<std::string> argv_prefix, std::string out, int exit_code = 0);
  // `argv_prefix` is not installed: the agent could not start it.
  void Missing(std::vector<std::string> argv_prefix);
  std::optional<agent_protocol::ExecReply> Find(const std::vector<std::string>& argv) const;

 private:
  std::map<std::vector<std::string>, agent_protocol::ExecReply> replies_;
};

}  // namespace clusterctl::testing
