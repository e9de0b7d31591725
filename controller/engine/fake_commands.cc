#include "controller/engine/fake_commands.h"

namespace clusterctl::testing {

void FakeCommands::Answer(std::vector<std::string> argv_prefix, std::string out, int exit_code) {
  agent_protocol::ExecReply reply;
  reply.exit_code = exit_code;
  reply.stdout_data = std::move(out);
  replies_[std::move(argv_prefix)] = std::move(reply);
}

void FakeCommands::Missing(std::vector<std::string> argv_prefix) {
  agent_protocol::ExecReply reply;
  reply.exit_code = 127;
  reply.started = false;
  reply.stderr_data = argv_prefix.empty() ? "" : argv_prefix.front() + ": No such file or directory\n";
  replies_[std::move(argv_prefix)] = std::move(reply);
}

std::optional<agent_protocol::ExecReply> FakeCommands::Find(const std::vector<std::string>& argv) const {
  for (size_t length = argv.size(); length > 0; --length) {
    auto found = replies_.find(std::vector<std::string>(argv.begin(), argv.begin() + static_cast<std::ptrdiff_t>(length)));
    if (found != replies_.end()) return found->second;
  }
  return std::nullopt;
}

}  // namespace clusterctl::testing
