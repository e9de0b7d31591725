// The inventory's `bmc` settings (inventory/bmc.h): layered like
// `connection`, the address each host's own, checked at load with
// file:line errors, the password only ever a file's path.
#include <doctest/doctest.h>

#include "inventory/inventory_json.h"
#include "inventory/loader.h"

namespace clusterctl {
namespace {

InventoryLoadOptions BmcTestOptions() {
  InventoryLoadOptions options;
  options.home_dir = "/home/admin";
  options.file_exists = [](const std::string& path) {
    return path == "/inv/secrets/bmc.pw" || path == "/home/admin/node03.pw";
  };
  return options;
}

std::optional<Inventory> ParseBmcInventory(const std::string& text, Diagnostics& diagnostics) {
  return ParseInventory(text, "inv.yaml", "/inv", diagnostics, BmcTestOptions());
}

std::vector<std::string> Errors(const Diagnostics& diagnostics) {
  std::vector<std::string> out;
  for (const Diagnostic& d : diagnostics.items()) {
    if (d.severity == Diagnostic::Severity::kError) out.push_back(d.ToString());
  }
  return out;
}

const char* kBmcInventory = R"(cluster: demo
hosts:
  head01: {address: 10.0.0.1}
  node[01-03]:
    address: 10.0.1.[1-3]
    bmc:
      address: 10.0.9.[1-3]
  node04:
    address: 10.0.1.4
    bmc: {address: bmc-node04.lab, port: 6230, user: root, password_file: ~/node03.pw, interface: lan}
groups:
  compute:
    hosts: [node01, node02, node03, node04]
    bmc: {user: admin, password_file: secrets/bmc.pw, cipher_suite: 3}
)";

}  // namespace

TEST_CASE("a host's bmc resolves from the cluster's, its groups' and its own settings") {
  Diagnostics diagnostics;
  std::optional<Inventory> inventory = ParseBmcInventory(kBmcInventory, diagnostics);
  REQUIRE_MESSAGE(inventory, diagnostics.ToString());
  CHECK_FALSE(inventory->FindHost("head01")->bmc);  // no address: no BMC

  const Host* node02 = inventory->FindHost("node02");
  REQUIRE(node02->bmc);
  CHECK(node02->bmc->address == "10.0.9.2");
  CHECK(node02->bmc->port == 623);
  CHECK(node02->bmc->user == "admin");
  CHECK(node02->bmc->password_file == "/inv/secrets/bmc.pw");
  CHECK(node02->bmc->interface == BmcInterface::kLanplus);
  CHECK(node02->bmc->cipher_suite == 3);

  const Host* node04 = inventory->FindHost("node04");  // the host's own keys win, key by key
  REQUIRE(node04->bmc);
  CHECK(node04->bmc->address == "bmc-node04.lab");
  CHECK(node04->bmc->port == 6230);
  CHECK(node04->bmc->user == "root");
  CHECK(node04->bmc->password_file == "/home/admin/node03.pw");
  CHECK(node04->bmc->interface == BmcInterface::kLan);
  CHECK(node04->bmc->cipher_suite == 3);
}

TEST_CASE("the inventory's JSON shows a host's bmc with the password file's path, never a password") {
  Diagnostics diagnostics;
  std::optional<Inventory> inventory = ParseBmcInventory(kBmcInventory, diagnostics);
  REQUIRE(inventory);
  nlohmann::json node01 = HostToJson(*inventory->FindHost("node01"));
  CHECK(node01["bmc"] == nlohmann::json{{"address", "10.0.9.1"}, {"port", 623}, {"user", "admin"},
                                        {"password_file", "/inv/secrets/bmc.pw"}, {"interface", "lanplus"},
                                        {"cipher_suite", 3}});
  CHECK(HostToJson(*inventory->FindHost("head01"))["bmc"].is_null());
}

TEST_CASE("bad bmc settings are errors naming where and what") {
  const std::string h = "cluster: demo\n";
  struct Case {
    std::string name, text, error;
  } cases[] = {
      {"no password file", h + "hosts:\n  a:\n    bmc: {address: 10.0.9.1, user: admin}\n",
       "inv.yaml:4:10: error: the bmc of host a has an address but no password_file (set it under the host's bmc, a "
       "group's or the inventory's)"},
      {"no user", h + "bmc: {password_file: secrets/bmc.pw}\nhosts:\n  a:\n    bmc: {address: 10.0.9.1}\n",
       "inv.yaml:5:10: error: the bmc of host a has an address but no user (set it under the host's bmc, a group's "
       "or the inventory's)"},
      {"password file missing", h + "bmc: {password_file: secrets/nope.pw}\nhosts:\n  a: {}\n",
       "inv.yaml:2:22: error: bmc password file 'secrets/nope.pw' not found (looked for /inv/secrets/nope.pw)"},
      {"address in a group",
       h + "hosts:\n  a: {}\ngroups:\n  compute:\n    hosts: [a]\n    bmc: {address: 10.0.9.1}\n",
       "inv.yaml:7:20: error: a bmc address is each host's own: set it under the host, not in group 'compute'"},
      {"bad interface", h + "bmc: {interface: ssh}\nhosts:\n  a: {}\n",
       "inv.yaml:2:18: error: bmc interface must be one of lanplus, lan, got 'ssh'"},
      {"cipher suite out of range", h + "bmc: {cipher_suite: 18}\nhosts:\n  a: {}\n",
       "inv.yaml:2:21: error: bmc cipher_suite must be between 0 and 17, got 18"},
      {"user too long for IPMI", h + "bmc: {user: administrator-of-bmcs}\nhosts:\n  a: {}\n",
       "inv.yaml:2:13: error: bmc user 'administrator-of-bmcs' is not a valid IPMI user name (letters, digits, '_', "
       "'-', '.', at most 16, no leading '-')"},
      {"address range of the wrong length",
       h + "bmc: {user: admin, password_file: secrets/bmc.pw}\nhosts:\n  n[1-3]:\n    bmc:\n      address: 10.0.9.[1-2]\n",
       "inv.yaml:6:16: error: bmc address '10.0.9.[1-2]' gives 2 addresses but 'n[1-3]' names 3 hosts; the range "
       "lengths must match"},
      {"address with an option", h + "hosts:\n  a:\n    bmc: {address: -oProxy}\n",
       "inv.yaml:4:20: error: bmc address '-oProxy' of host a is invalid: not a valid host name"},
      {"two hosts on one bmc",
       h + "bmc: {user: admin, password_file: secrets/bmc.pw}\nhosts:\n  a:\n    bmc: {address: 10.0.9.1}\n"
           "  b:\n    bmc: {address: 10.0.9.1}\n",
       "inv.yaml:7:10: error: hosts 'a' and 'b' have the same bmc 10.0.9.1 port 623"},
      {"unknown key", h + "bmc: {pasword_file: x}\nhosts:\n  a: {}\n", "inv.yaml:2:7: error: unknown key 'pasword_file' in 'bmc' of the inventory"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    Diagnostics diagnostics;
    CHECK_FALSE(ParseBmcInventory(c.text, diagnostics));
    std::vector<std::string> errors = Errors(diagnostics);
    REQUIRE_FALSE(errors.empty());
    CHECK(errors.front().rfind(c.error, 0) == 0);
    if (errors.front().rfind(c.error, 0) != 0) MESSAGE(errors.front());
  }
}

}  // namespace clusterctl
