#include "controller/validate/fabric_checks.h"

#include <regex>

#include "common/strings.h"
#include "controller/validate/verdicts.h"
#include "inventory/address.h"

namespace clusterctl {

bool IsIpoibName(std::string_view name) { return ParseIpoibName(name).has_value(); }

std::vector<IpoibInterface> IpoibInterfacesOf(const Host& host, const nlohmann::json& facts, int configured_mtu) {
  std::vector<IpoibInterface> out;
  const nlohmann::json none = nlohmann::json::array();
  const nlohmann::json& live = facts.is_object() && facts.contains("interfaces") ? facts["interfaces"] : none;
  for (const Interface& i : host.interfaces) {
    if (!IsIpoibName(i.name)) continue;
    IpoibInterface entry;
    entry.name = i.name;
    entry.address = i.address;
    entry.configured_mtu = configured_mtu;
    for (const nlohmann::json& l : live.is_array() ? live : none) {
      if (!l.is_object() || l.value("name", "") != i.name) continue;
      entry.exists = true;
      entry.up = l.value("up", false);
      entry.mtu = l.contains("mtu") && l["mtu"].is_number_integer() ? l["mtu"].get<int>() : 0;
      entry.link_type = l.contains("link_type") && l["link_type"].is_string() ? l["link_type"].get<std::string>() : "";
      if (l.contains("addresses") && l["addresses"].is_array()) {
        for (const nlohmann::json& a : l["addresses"]) {
          if (a.is_object() && a.value("address", "") == i.address) entry.has_address = true;
        }
      }
    }
    out.push_back(entry);
  }
  return out;
}

std::vector<std::string> IpoibPingArgv(const IpoibPing& ping) {
  return {"ping", "-n", "-q", "-M", "do", "-s", std::to_string(ping.mtu - 28), "-c", "2", "-i", "0.2", "-W", "2",
          "-I", ping.interface, ping.address};
}

PingSummary ParsePingSummary(std::string_view text) {
  static const std::regex kSummary(R"((\d+) packets transmitted, (\d+) (?:packets )?received)");
  std::string s(text);
  std::smatch m;
  if (!std::regex_search(s, m, kSummary)) return {};
  return {std::stoi(m[1]), std::stoi(m[2])};
}

namespace {

constexpr const char* kCheck = "fabric.ipoib";

// Why an interface cannot be tested, or "".
std::string InterfaceProblem(const IpoibInterface& i) {
  if (!i.exists) return i.name + " does not exist on the node";
  if (!i.up) return i.name + " is down";
  if (!i.has_address) return i.name + " does not have its address " + i.address;
  if (i.configured_mtu > 0 && i.mtu != i.configured_mtu) {
    return i.name + " MTU " + std::to_string(i.mtu) + ", configured " + std::to_string(i.configured_mtu);
  }
  return "";
}

std::string PingProblem(const IpoibPing& p) {
  const std::string what = p.interface + " -> " + p.peer + " " + p.address + " at MTU " + std::to_string(p.mtu);
  if (!p.output.started) return "ping is not installed (the ipoib role installs it)";
  PingSummary summary = ParsePingSummary(p.output.out);
  if (summary.transmitted > 0 && summary.received == summary.transmitted && p.output.Succeeded()) return "";
  if (summary.transmitted > 0) {
    return what + ": " + std::to_string(summary.received) + "/" + std::to_string(summary.transmitted) +
           " replies with DF set";
  }
  return what + ": " + ExitDescription(p.output);
}

}  // namespace

CheckResult EvaluateIpoibReach(const std::string& host, const std::vector<IpoibInterface>& interfaces,
                               const std::vector<IpoibPing>& pings) {
  if (interfaces.empty()) return Skip(kCheck, CheckScope::kNode, host, "no IPoIB interfaces (ib*) in the inventory for " + host);
  std::vector<std::string> problems, evidence;
  for (const IpoibInterface& i : interfaces) {
    std::string problem = InterfaceProblem(i);
    if (!problem.empty()) problems.push_back(problem);
    evidence.push_back(i.name + ": " + (i.exists ? (i.up ? "up" : "down") : "missing") + ", MTU " + std::to_string(i.mtu) +
                       ", link type " + (i.link_type.empty() ? "unknown" : i.link_type) +
                       (i.link_type == "infiniband" || i.link_type.empty() ? "" : " (not an InfiniBand link)"));
  }
  int reached = 0;
  for (const IpoibPing& p : pings) {
    std::string problem = PingProblem(p);
    if (problem.empty()) {
      ++reached;
      continue;
    }
    problems.push_back(problem);
    for (const std::string& line : Split(p.output.Both(), '\n')) {
      std::string_view t = Trim(line);
      if (!t.empty() && evidence.size() < 16) evidence.push_back(p.peer + ": " + std::string(t));
    }
  }
  const std::string measured = std::to_string(reached) + "/" + std::to_string(pings.size()) + " peers reached";
  std::string mtus;
  for (const IpoibInterface& i : interfaces) mtus += (mtus.empty() ? "" : ", ") + i.name + " " + std::to_string(i.TestMtu());
  const std::string threshold = "every peer, DF set at MTU (" + mtus + ")";
  if (!problems.empty()) {
    std::string detail = problems.front();
    if (problems.size() > 1) detail += " (and " + std::to_string(problems.size() - 1) + " more)";
    return Fail(kCheck, CheckScope::kNode, host, detail, evidence, measured, threshold);
  }
  if (pings.empty()) return Skip(kCheck, CheckScope::kNode, host, "no other host has an address on " + interfaces.front().name);
  return Pass(kCheck, CheckScope::kNode, host, measured, threshold, Join(evidence, "; "));
}

}  // namespace clusterctl
