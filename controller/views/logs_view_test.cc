// The logs view: every host forwards to the logs group's host unless its
// log_server names another; the log host keeps its own; bad targets and a
// second log host are errors naming them.
#include "controller/views/logs_view.h"

#include <doctest/doctest.h>

#include "tests/unit/inventory_text.h"

namespace clusterctl {
namespace {

std::string WithVars(const std::string& vars, const std::string& groups = "  logs: {hosts: [head]}\n",
                     const std::string& head_address = "10.0.0.1") {
  return "version: 1\ncluster: lab\nvars:\n" + vars + "hosts:\n  head: {address: " + head_address +
         "}\n  gpu01: {address: 10.0.0.2}\n  gpu02: {address: 10.0.0.3, vars: {log_server: logs.site.example}}\n"
         "groups:\n  controller: {hosts: [head]}\n  compute: {hosts: [gpu01, gpu02]}\n" + groups;
}

Result<nlohmann::json> Build(const std::string& text) {
  return BuildLogsView(testing::InventoryFromText(text), {}, ViewInputs{});
}

}  // namespace

TEST_CASE("logs view: hosts forward to the log host's address, a host's log_server wins, the log host keeps its own") {
  auto view = Build(WithVars("  x: 1\n"));
  REQUIRE(view.ok());
  CHECK((*view)["server"] == "head");
  const nlohmann::json& hosts = (*view)["per_host"];
  CHECK(hosts["gpu01"] == nlohmann::json{{"server", "head"}, {"receives", false}, {"target", "10.0.0.1"}});
  CHECK(hosts["gpu02"]["target"] == "logs.site.example");
  CHECK(hosts["head"]["receives"] == true);
  CHECK(hosts["head"]["target"].is_null());
  CHECK(hosts["head"]["max_sessions"] == 200);
}

TEST_CASE("logs view: the log host listens at its address and knows its senders by every inventory address") {
  const std::string text =
      "version: 1\ncluster: lab\nhosts:\n  head: {address: 'fd00::1'}\n"
      "  gpu01: {address: 10.0.0.2, interfaces: {ib0: 10.10.0.2/24}}\n"
      "  gpu02: {address: 'fd00::3'}\n  gpu03: {address: gpu03.site.example}\n"
      "  gpu04: {address: 10.0.0.9}\n  gpu05: {address: 10.0.0.9, connection: {port: 2222}}\n"  // one address, two hosts
      "  gpu06: {address: 10.0.0.6, vars: {log_server: logs.site.example}}\n"
      "groups:\n  logs: {hosts: [head]}\n";
  auto view = Build(text);
  REQUIRE(view.ok());
  const nlohmann::json& head = (*view)["per_host"]["head"];
  CHECK(head["listen"] == "fd00::1");
  // Sorted by address; IPv6 in brackets for $AllowedSender; gpu06 sends elsewhere; the log host is no sender.
  CHECK(head["allowed_senders"] == "10.0.0.2,10.0.0.9,10.10.0.2,[fd00::3],gpu03.site.example");
  const nlohmann::json expected = nlohmann::json::parse(R"([
      {"index": "10.0.0.2", "value": "gpu01", "last": false},
      {"index": "10.10.0.2", "value": "gpu01", "last": false},
      {"index": "fd00::3", "value": "gpu02", "last": false},
      {"index": "gpu03.site.example", "value": "gpu03", "last": true}])");
  CHECK(head["senders"] == expected);  // 10.0.0.9 names no single host: filed as unknown
  CHECK_FALSE((*view)["per_host"]["gpu01"].contains("senders"));
}

TEST_CASE("logs view: no log host and no log_server, nothing is forwarded; a site's server for all") {
  auto none = Build(WithVars("  x: 1\n", ""));
  REQUIRE(none.ok());
  CHECK((*none)["server"].is_null());
  CHECK((*none)["per_host"]["gpu01"]["target"].is_null());
  CHECK((*none)["per_host"]["head"]["receives"] == false);
  CHECK((*none)["per_host"]["gpu02"]["target"] == "logs.site.example");
  auto site = Build(WithVars("  log_server: 192.0.2.7\n", ""));
  REQUIRE(site.ok());
  CHECK((*site)["per_host"]["head"]["target"] == "192.0.2.7");
  CHECK((*site)["per_host"]["gpu01"]["target"] == "192.0.2.7");
}

TEST_CASE("logs view: the log host's session limit grows with its senders, in steps") {
  auto sessions = [](int hosts) {
    std::string text = "version: 1\ncluster: lab\nhosts:\n  head: {address: 10.0.0.1}\n";
    if (hosts > 0) text += "  n[1-" + std::to_string(hosts) + "]: {}\n";  // each at its name
    auto view = Build(text + "groups:\n  logs: {hosts: [head]}\n");
    REQUIRE(view.ok());
    return (*view)["per_host"]["head"]["max_sessions"].get<int>();
  };
  CHECK(sessions(0) == 200);
  CHECK(sessions(100) == 200);
  CHECK(sessions(101) == 1000);
  CHECK(sessions(250) == 1000);
  CHECK(sessions(501) == 2000);
}

TEST_CASE("logs view: two log hosts, or a target that is no address, are errors naming them") {
  auto two = Build(WithVars("  x: 1\n", "  logs: {hosts: [head, gpu01]}\n"));
  REQUIRE_FALSE(two.ok());
  CHECK(two.status().message() == "the logs group has 2 hosts (head, gpu01): it names the one log host");
  auto bad = Build(WithVars("  log_server: 'x\" port=\"1'\n", ""));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("head's log_server 'x\" port=\"1' is not an address") == 0);
}

}  // namespace clusterctl
