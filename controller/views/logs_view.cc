#include "controller/views/logs_view.h"

#include "common/json_fields.h"
#include "common/strings.h"
#include "controller/catalog/value_syntax.h"

namespace clusterctl {
namespace {

// Where `host` forwards: its own log_server, else the log host (unless it is
// the log host). Null when it forwards nowhere.
Result<nlohmann::json> TargetOf(const Host& host, const Host* log_host) {
  std::string target = TextAt(host.vars, "log_server");
  std::string what = host.name + "'s log_server";
  if (target.empty() && log_host && log_host != &host) {
    target = log_host->address;
    what = host.name + "'s log host " + log_host->name + "'s address";
  }
  if (target.empty()) return nlohmann::json();
  const std::string why = FindValueSyntax("address")->refuses(target);
  if (!why.empty()) return Status::InvalidArgument(what + " '" + Printable(target, 80) + "' " + why);
  return nlohmann::json(target);
}

// Room for every sender twice (a reconnect while its old session lingers):
// rsyslog's own default of 200 up to 100 senders, beyond that rounded up to
// a thousand, so a growing cluster restarts the log host's rsyslog for this
// once per 500 hosts, not at every deploy that adds one.
int MaxSessions(int senders) {
  if (2 * senders <= 200) return 200;
  return (2 * senders + 999) / 1000 * 1000;
}

}  // namespace

Result<nlohmann::json> BuildLogsView(const Inventory& inventory, const std::map<std::string, nlohmann::json>&,
                                     const ViewInputs&) {
  const std::vector<std::string> servers = inventory.MembersOf(kGroupLogs);
  if (servers.size() > 1) {
    return Status::InvalidArgument("the logs group has " + std::to_string(servers.size()) + " hosts (" + Join(servers, ", ") +
                                   "): it names the one log host");
  }
  const Host* log_host = servers.empty() ? nullptr : inventory.FindHost(servers.front());
  const nlohmann::json server = log_host ? nlohmann::json(log_host->name) : nlohmann::json();
  nlohmann::json per_host = nlohmann::json::object();
  int senders = 0;
  for (const Host& host : inventory.hosts) {
    auto target = TargetOf(host, log_host);
    if (!target.ok()) return target.status();
    if (log_host && *target == log_host->address) ++senders;
    per_host[host.name] = {{"server", server}, {"receives", log_host == &host}, {"target", *target}};
  }
  if (log_host) per_host[log_host->name]["max_sessions"] = MaxSessions(senders);
  return nlohmann::json{{"server", server}, {"per_host", per_host}};
}

}  // namespace clusterctl
