#include "controller/views/logs_view.h"

#include <set>

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

std::string Unbracketed(const std::string& address) {
  if (address.size() > 2 && address.front() == '[' && address.back() == ']') return address.substr(1, address.size() - 2);
  return address;
}

// An address as rsyslog's $AllowedSender takes it: an IPv6 literal in brackets.
std::string AllowedSenderForm(const std::string& address) {
  const std::string bare = Unbracketed(address);
  return bare.find(':') != std::string::npos ? "[" + bare + "]" : bare;
}

// Who may send to the log host and under which name each is filed: every
// address the inventory gives a host that forwards there (its address, its
// interfaces'), as $fromhost-ip (or, for a DNS name, $fromhost) reads it.
// An address two hosts share is left out of the names (their lines go to
// the unknown bucket, never under the wrong host); both may still send.
struct Senders {
  std::vector<std::string> allowed;  // $AllowedSender TCP entries
  nlohmann::json table = nlohmann::json::array();  // lookup table rows {index, value}
};

Senders SendersTo(const Inventory& inventory, const Host& log_host, const nlohmann::json& per_host) {
  std::map<std::string, std::set<std::string>> names_of;  // address -> hosts
  for (const Host& host : inventory.hosts) {
    if (&host == &log_host || per_host[host.name]["target"] != log_host.address) continue;
    names_of[Unbracketed(host.address)].insert(host.name);
    for (const Interface& interface : host.interfaces) {
      if (!interface.address.empty()) names_of[Unbracketed(interface.address)].insert(host.name);
    }
  }
  Senders senders;
  for (const auto& [address, names] : names_of) {
    senders.allowed.push_back(AllowedSenderForm(address));
    if (names.size() == 1) senders.table.push_back({{"index", address}, {"value", *names.begin()}, {"last", false}});
  }
  if (!senders.table.empty()) senders.table.back()["last"] = true;
  return senders;
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
  if (log_host) {
    nlohmann::json& receiver = per_host[log_host->name];
    receiver["max_sessions"] = MaxSessions(senders);
    receiver["listen"] = Unbracketed(log_host->address);
    Senders from = SendersTo(inventory, *log_host, per_host);
    receiver["allowed_senders"] = Join(from.allowed, ",");
    receiver["senders"] = std::move(from.table);
  }
  return nlohmann::json{{"server", server}, {"per_host", per_host}};
}

}  // namespace clusterctl
