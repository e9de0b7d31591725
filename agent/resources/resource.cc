#include "agent/resources/resource.h"

#include "agent/resources/registry.h"
#include "common/json_text.h"
#include "common/strings.h"

namespace clusterctl::agent {

CommandResult ResourceHost::Run(const CommandSpec& spec, bool mutating) {
  CommandResult result;
  if (hangup_.active() && !spec.hangup.active()) {
    CommandSpec watched = spec;
    watched.hangup = hangup_;
    result = RunCommand(watched);
  } else {
    result = RunCommand(spec);
  }
  log_.push_back({spec.argv, mutating, result.exit_code});
  return result;
}

bool ResourceHost::RanMutatingCommand() const {
  for (const ExecutedCommand& c : log_) {
    if (c.mutating) return true;
  }
  return false;
}

bool RunOrFail(ResourceHost& host, ResourceOutcome& outcome, std::vector<std::string> argv, bool mutating,
               const std::string& stdin_data, std::chrono::minutes limit) {
  CommandSpec spec;
  spec.argv = std::move(argv);
  spec.stdin_data = stdin_data;
  spec.timeout = limit;
  return RunSpecOrFail(host, outcome, spec, mutating);
}

std::string CommandFailureReason(const CommandSpec& spec, const CommandResult& result) {
  const auto seconds = [](auto d) { return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(d).count()); };
  return result.timed_out  ? "did not finish in " + seconds(spec.timeout) + " s"
         : result.stalled ? "made no progress for " + seconds(spec.stall.window) + " s"
         : result.started ? "exited with status " + std::to_string(result.exit_code)
                          : "could not be started";
}

bool RunSpecOrFail(ResourceHost& host, ResourceOutcome& outcome, const CommandSpec& spec, bool mutating,
                   CommandResult* ran) {
  CommandResult result = host.Run(spec, mutating);
  const bool ok = result.exit_code == 0;
  if (!ok) {
    outcome.timed_out = result.timed_out;
    outcome.Fail(spec.argv[0] + " " + CommandFailureReason(spec, result));
    outcome.failed_command = Join(spec.argv, " ");
    std::string output = result.stdout_data + result.stderr_data;
    outcome.output = output.size() > 4000 ? output.substr(output.size() - 4000) : output;
  }
  if (ran) *ran = std::move(result);
  return ok;
}

namespace {

// The parameters with the types their kind declares: a string parameter may
// be written as a number or a boolean in a role ("{{generation}}" renders to
// 3) and a list of strings may hold numbers; the kinds read strings.
ResourceRequest AsDeclared(const ResourceRequest& request, const resources::ResourceSpec& spec) {
  ResourceRequest typed = request;
  auto text = [](const nlohmann::json& v) { return v.is_string() ? v : nlohmann::json(JsonText(v)); };
  for (const resources::ParamSpec& p : spec.params) {
    auto it = typed.params.find(p.name);
    if (it == typed.params.end()) continue;
    if (p.type == resources::ParamType::kString && !it->is_string() && (it->is_number() || it->is_boolean())) {
      *it = text(*it);
    } else if (p.type == resources::ParamType::kStringList && it->is_array()) {
      for (auto& item : *it) item = text(item);
    }
  }
  return typed;
}

}  // namespace

ResourceOutcome RunResource(const ResourceRequest& request, ResourceHost& host) {
  ResourceOutcome outcome;
  const ResourceKind* kind = FindResourceKind(request.kind);
  if (!kind) return outcome.Fail("unknown resource kind '" + request.kind + "'");
  if (!kind->run) return outcome.Fail(request.kind + " is carried out by the controller, not by the agent");
  // Controller-side parameters never reach the agent; accept only the rest.
  nlohmann::json agent_params = request.params;
  for (const auto& p : kind->spec.params) {
    if (p.controller_side) agent_params.erase(p.name);
  }
  resources::ResourceSpec agent_spec = kind->spec;
  agent_spec.one_of.clear();
  std::vector<std::string> problems = resources::ValidateParams(agent_spec, agent_params);
  if (!problems.empty()) return outcome.Fail(Join(problems, "; "));
  try {
    return kind->run(AsDeclared(request, kind->spec), host);
  } catch (const std::exception& e) {
    return outcome.Fail(std::string("internal error in ") + request.kind + ": " + e.what());
  }
}

}  // namespace clusterctl::agent
