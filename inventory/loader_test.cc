#include "inventory/loader.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>

#include "inventory/hostlist.h"
#include "tests/unit/test_paths.h"

namespace clusterctl {
namespace {

InventoryLoadOptions TestOptions() {
  InventoryLoadOptions options;
  options.home_dir = "/home/admin";
  options.file_exists = [](const std::string& path) { return path == "/inv/keys/id_ed25519"; };
  return options;
}

std::optional<Inventory> Parse(const std::string& text, Diagnostics& diagnostics) {
  return ParseInventory(text, "inv.yaml", "/inv", diagnostics, TestOptions());
}

// The first error line of the diagnostics (without the trailing newline).
std::string FirstError(const Diagnostics& diagnostics) {
  for (const Diagnostic& d : diagnostics.items()) {
    if (d.severity == Diagnostic::Severity::kError) return d.ToString();
  }
  return "";
}

const char* kHeader = "cluster: demo\n";

}  // namespace

TEST_CASE("a valid inventory resolves ranges, groups, connection settings and variables") {
  const std::string text = R"(version: 1
cluster: demo
connection:
  user: admin
  key_file: keys/id_ed25519
vars:
  site: lab
  gpus_per_node: 4
hosts:
  head01:
    address: 10.0.0.1
    interfaces:
      ib0: 10.10.0.1/16
  gpu[001-128]:
    address: 10.0.2.[1-128]
    interfaces:
      ib0: 10.10.2.[1-128]/16
  gpu129:
    address: 10.0.3.1
    vars:
      gpus_per_node: 2
    connection:
      port: 2200
groups:
  controller:
    hosts: [head01]
  compute:
    hosts:
      - gpu[001-129]
    vars:
      gpus_per_node: 8
      partition: batch
    connection:
      become: none
  rack1:
    hosts: gpu[001-064]
    vars:
      partition: rack1
  gpu:
    children: [compute]
)";
  Diagnostics d;
  std::optional<Inventory> inventory = Parse(text, d);
  INFO(d.ToString());
  REQUIRE(inventory);
  CHECK(inventory->cluster_name == "demo");
  CHECK(inventory->hosts.size() == 130);
  const Host* gpu064 = inventory->FindHost("gpu064");
  REQUIRE(gpu064);
  CHECK(gpu064->address == "10.0.2.64");
  REQUIRE(gpu064->interfaces.size() == 1);
  CHECK(gpu064->interfaces[0].address == "10.10.2.64");
  CHECK(gpu064->interfaces[0].prefix_length == 16);
  CHECK(gpu064->groups == std::vector<std::string>{"compute", "gpu", "rack1"});
  // cluster < group < host
  CHECK(gpu064->vars["site"] == "lab");
  CHECK(gpu064->vars["gpus_per_node"] == 8);
  CHECK(inventory->FindHost("gpu129")->vars["gpus_per_node"] == 2);
  // compute is a child of gpu (depth 1), rack1 is top-level (depth 0): the deeper group wins.
  CHECK(gpu064->vars["partition"] == "batch");
  CHECK(inventory->FindGroup("rack1")->depth == 0);
  // Connection: cluster user and key, group become, host port.
  CHECK(gpu064->connection.user == "admin");
  CHECK(gpu064->connection.key_file == "/inv/keys/id_ed25519");
  CHECK(gpu064->connection.EffectiveBecome() == Become::kNone);
  CHECK(inventory->FindHost("head01")->connection.EffectiveBecome() == Become::kSudo);
  CHECK(inventory->FindHost("gpu129")->connection.port == 2200);
  CHECK(CollapseHostList(inventory->MembersOf("gpu")) == "gpu[001-129]");
  CHECK(inventory->FindGroup("gpu")->depth == 0);
  CHECK(inventory->FindGroup("compute")->depth == 1);
  CHECK(inventory->MembersOf("all").size() == 130);
}

TEST_CASE("a child group's variables win over its parent's") {
  Diagnostics d;
  auto inventory = Parse(std::string(kHeader) + R"(hosts:
  n1: {}
groups:
  compute:
    children: [rack]
    vars: {rate: 200}
  rack:
    hosts: [n1]
    vars: {rate: 400}
)", d);
  INFO(d.ToString());
  REQUIRE(inventory);
  CHECK(inventory->FindHost("n1")->vars["rate"] == 400);
}

// A `vars:` key with nothing under it is no variables at every level (the
// cluster's was kept as null, and the views threw on it: inventory check aborted).
TEST_CASE("an empty vars: is no variables, at the cluster, group and host levels") {
  Diagnostics d;
  auto inventory = Parse(std::string(kHeader) + "vars:\nhosts:\n  n1: {vars: }\ngroups:\n  g: {hosts: n1, vars: }\n", d);
  INFO(d.ToString());
  REQUIRE(inventory);
  CHECK(inventory->cluster_vars == nlohmann::json::object());
  CHECK(inventory->FindHost("n1")->vars.is_object());
}

TEST_CASE("conflicting variables from unrelated groups produce a warning") {
  Diagnostics d;
  auto inventory = Parse(std::string(kHeader) + R"(hosts:
  n1: {}
groups:
  a: {hosts: [n1], vars: {x: 1}}
  b: {hosts: [n1], vars: {x: 2}}
)", d);
  REQUIRE(inventory);
  CHECK(inventory->FindHost("n1")->vars["x"] == 2);
  CHECK(d.ToString().find("warning: variable 'x' is set differently by groups 'a' and 'b'") != std::string::npos);
}

struct BadCase {
  const char* name;
  std::string yaml;
  const char* expected;  // the first error, exactly
};

TEST_CASE("every kind of bad inventory is rejected with file:line:column and what is wrong") {
  const std::string h = kHeader;
  const BadCase cases[] = {
      {"YAML syntax error", h + "hosts:\n  a: [1, 2\n",
       "inv.yaml:4:1: error: YAML syntax error: end of sequence flow not found"},
      {"unknown top-level key with suggestion", h + "host:\n  a: {}\n",
       "inv.yaml:2:1: error: unknown key 'host' in the inventory (did you mean 'hosts'?); allowed: version, cluster, connection, bmc, vars, hosts, groups"},
      {"unknown host key with suggestion", h + "hosts:\n  a:\n    adress: 10.0.0.1\n",
       "inv.yaml:4:5: error: unknown key 'adress' in host 'a' (did you mean 'address'?); allowed: address, interfaces, connection, bmc, vars"},
      {"unknown connection key", h + "connection:\n  usr: root\nhosts:\n  a: {}\n",
       "inv.yaml:3:3: error: unknown key 'usr' in 'connection' of the inventory (did you mean 'user'?); allowed: user, port, key_file, become, jump_host, host_key_policy, connect_timeout"},
      {"unknown group key", h + "hosts:\n  a: {}\ngroups:\n  g:\n    host: [a]\n",
       "inv.yaml:6:5: error: unknown key 'host' in group 'g' (did you mean 'hosts'?); allowed: hosts, children, vars, connection, bmc, roles"},
      {"unquoted host range in a flow list", h + "hosts:\n  gpu[01-04]: {}\ngroups:\n  compute:\n    hosts: [head, gpu[01-04]]\n",
       "inv.yaml:6:19: error: a host range inside a flow [ ] list or { } map must be quoted: write [\"gpu[01-04]\"], or use block style (- gpu[01-04]), or a plain value (hosts: gpu[01-04],login01)"},
      {"unquoted address range in a flow map", h + "hosts:\n  gpu[01-04]: {address: 10.0.0.[1-4]}\n",
       "inv.yaml:3:25: error: a host range inside a flow [ ] list or { } map must be quoted: write [\"gpu[01-04]\"], or use block style (- gpu[01-04]), or a plain value (hosts: gpu[01-04],login01)"},
      {"duplicate host", h + "hosts:\n  a: {}\n  b: {}\n  a: {}\n",
       "inv.yaml:5:3: error: duplicate key 'a' (first at line 3)"},
      {"overlapping ranges", h + "hosts:\n  gpu[01-10]: {}\n  gpu[05-20]: {}\n",
       "inv.yaml:4:3: error: host 'gpu05' is defined twice (overlapping ranges: 'gpu[05-20]' and 'gpu[01-10]'; first at line 3)"},
      {"range and single name overlap", h + "hosts:\n  gpu[01-04]: {}\n  gpu03: {}\n",
       "inv.yaml:4:3: error: host 'gpu03' is defined twice (overlapping ranges: 'gpu03' and 'gpu[01-04]'; first at line 3)"},
      {"malformed range", h + "hosts:\n  gpu[10-1]: {}\n",
       "inv.yaml:3:3: error: host malformed range in 'gpu[10-1]' at column 4: range '10-1' runs backwards"},
      {"unclosed range", h + "hosts:\n  gpu[01-04: {}\n",
       "inv.yaml:3:3: error: host malformed range in 'gpu[01-04' at column 4: '[' is never closed"},
      {"range lengths differ", h + "hosts:\n  gpu[01-04]:\n    address: 10.0.2.[1-3]\n",
       "inv.yaml:4:14: error: address '10.0.2.[1-3]' gives 3 addresses but 'gpu[01-04]' names 4 hosts; the range lengths must match"},
      {"single address for a range", h + "hosts:\n  gpu[01-04]:\n    address: 10.0.2.1\n",
       "inv.yaml:4:14: error: address '10.0.2.1' is a single address but 'gpu[01-04]' names 4 hosts; give a range of the same length, e.g. 10.0.2.[1-4]"},
      {"interface range length differs", h + "hosts:\n  gpu[01-02]:\n    interfaces:\n      ib0: 10.10.2.[1-3]/16\n",
       "inv.yaml:5:12: error: interface ib0 address '10.10.2.[1-3]/16' gives 3 addresses but 'gpu[01-02]' names 2 hosts; the range lengths must match"},
      {"group names a missing host", h + "hosts:\n  gpu01: {}\ngroups:\n  compute:\n    hosts: [gpu01, gpu02]\n",
       "inv.yaml:6:20: error: group 'compute' names host 'gpu02', which is not defined under 'hosts' (did you mean 'gpu01'?)"},
      {"group names a missing child", h + "hosts:\n  a: {}\ngroups:\n  all_gpu:\n    children: [compte]\n  compute:\n    hosts: [a]\n",
       "inv.yaml:6:16: error: group 'all_gpu' names child group 'compte', which is not defined under 'groups' (did you mean 'compute'?)"},
      {"group lists a group as a host", h + "hosts:\n  a: {}\ngroups:\n  compute:\n    hosts: [a]\n  gpu:\n    hosts: [compute]\n",
       "inv.yaml:8:13: error: group 'gpu' names host 'compute', which is not defined under 'hosts' ('compute' is a group; list it under 'children')"},
      {"cycle in groups of groups", h + "hosts:\n  a: {}\ngroups:\n  x:\n    children: [y]\n  y:\n    children: [z]\n  z:\n    children: [x]\n",
       "inv.yaml:10:16: error: groups form a cycle: x -> y -> z -> x"},
      {"group contains itself", h + "hosts:\n  a: {}\ngroups:\n  x:\n    children: [x]\n",
       "inv.yaml:6:16: error: groups form a cycle: x -> x"},
      {"invalid IPv4 address", h + "hosts:\n  a:\n    address: 10.0.0.300\n",
       "inv.yaml:4:14: error: address '10.0.0.300' of host a is invalid: not a valid IPv4 address"},
      {"invalid address in a range", h + "hosts:\n  gpu[1-3]:\n    address: 10.0.0.[254-256]\n",
       "inv.yaml:4:14: error: address '10.0.0.256' of host gpu3 is invalid: not a valid IPv4 address"},
      {"invalid interface prefix", h + "hosts:\n  a:\n    interfaces:\n      ib0: 10.10.0.1/40\n",
       "inv.yaml:5:12: error: interface ib0 address '10.10.0.1/40' of host a: prefix length '/40' must be 0-32"},
      {"port out of range", h + "connection:\n  port: 70000\nhosts:\n  a: {}\n",
       "inv.yaml:3:9: error: connection port must be between 1 and 65535, got 70000"},
      {"port not a number", h + "hosts:\n  a:\n    connection:\n      port: ssh\n",
       "inv.yaml:5:13: error: connection port must be an integer, got 'ssh'"},
      {"missing key file", h + "connection:\n  key_file: ~/.ssh/missing\nhosts:\n  a: {}\n",
       "inv.yaml:3:13: error: key file '~/.ssh/missing' not found (looked for /home/admin/.ssh/missing)"},
      {"become typo", h + "connection:\n  become: sudoo\nhosts:\n  a: {}\n",
       "inv.yaml:3:11: error: connection become must be one of sudo, none, got 'sudoo' (did you mean 'sudo'?)"},
      {"bad jump host", h + "connection:\n  jump_host: admin@bastion:99999\nhosts:\n  a: {}\n",
       "inv.yaml:3:14: error: jump_host 'admin@bastion:99999' is not [user@]host[:port]: port 99999 is outside 1-65535"},
      {"jump host user that is an option", h + "connection:\n  jump_host: \"-oProxyCommand=x@bastion\"\nhosts:\n  a: {}\n",
       "inv.yaml:3:14: error: jump_host '-oProxyCommand=x@bastion' is not [user@]host[:port]: user '-oProxyCommand=x' is not a valid user name"},
      {"jump host user with shell syntax", h + "connection:\n  jump_host: \"a$(id)@bastion\"\nhosts:\n  a: {}\n",
       "inv.yaml:3:14: error: jump_host 'a$(id)@bastion' is not [user@]host[:port]: user 'a$(id)' is not a valid user name"},
      {"unsupported format version", "version: 2\n" + h + "hosts:\n  a: {}\n",
       "inv.yaml:1:10: error: inventory format version 2 is not supported by this clusterctl (it reads version 1)"},
      {"missing cluster name", "hosts:\n  a: {}\n",
       "inv.yaml:1:1: error: missing required key 'cluster' (the cluster's name)"},
      {"missing hosts", h, "inv.yaml:1:1: error: missing required key 'hosts'"},
      {"bad cluster name", "cluster: My Cluster\nhosts:\n  a: {}\n",
       "inv.yaml:1:10: error: cluster name 'My Cluster' must be 1-40 lowercase letters, digits, '_' or '-', starting with a letter"},
      {"hosts is a list", h + "hosts:\n  - a\n",
       "inv.yaml:3:3: error: 'hosts' must be a map, got a list"},
      {"top level is a list", "- cluster: a\n", "inv.yaml:1:1: error: the inventory must be a map, got a list"},
      {"empty file", "", "inv.yaml:1:1: error: the inventory is empty; it needs at least 'cluster' and 'hosts'"},
      {"same address and port twice", h + "hosts:\n  a: {address: 10.0.0.1}\n  b: {address: 10.0.0.1}\n",
       "inv.yaml:4:3: error: hosts 'a' and 'b' have the same address 10.0.0.1 and port 22"},
      {"bad variable name", h + "vars:\n  slurm-version: 23\nhosts:\n  a: {}\n",
       "inv.yaml:3:3: error: variable name 'slurm-version' in the inventory must be letters, digits and '_', not starting with a digit"},
      {"group named all", h + "hosts:\n  a: {}\ngroups:\n  all:\n    vars: {x: 1}\n",
       "inv.yaml:5:3: error: group 'all' is implicit (every host); set cluster-wide values under the top-level 'vars'"},
      {"host name with shell characters", h + "hosts:\n  \"gpu;reboot\": {}\n",
       "inv.yaml:3:3: error: host name 'gpu;reboot' is invalid: character ';' is not allowed (letters, digits, '-', '_', '.')"},
      {"group and host share a name", h + "hosts:\n  compute: {}\ngroups:\n  compute:\n    hosts: [compute]\n",
       "inv.yaml:5:3: error: group 'compute' has the same name as a host; names must be unambiguous in --limit patterns"},
  };
  for (const BadCase& c : cases) {
    CAPTURE(c.name);
    Diagnostics d;
    std::optional<Inventory> inventory = Parse(c.yaml, d);
    CHECK_FALSE(inventory.has_value());
    CHECK(FirstError(d) == c.expected);
  }
}

TEST_CASE("every problem in a file is listed, not just the first") {
  Diagnostics d;
  auto inventory = Parse(std::string(kHeader) + R"(hosts:
  a:
    adress: 10.0.0.1
  b:
    address: 10.0.0.999
  c:
    connection: {port: 0}
)", d);
  CHECK_FALSE(inventory);
  CHECK(d.error_count() == 3);
}

TEST_CASE("hostile input is rejected in bounded time") {
  auto start = std::chrono::steady_clock::now();
  SUBCASE("16384 levels of nesting") {
    Diagnostics d;
    std::string deep = std::string(kHeader) + "vars:\n  x: " + std::string(16384, '[') + std::string(16384, ']') + "\n";
    CHECK_FALSE(Parse(deep, d));
    CHECK(FirstError(d).find("nesting") != std::string::npos);
  }
  SUBCASE("billion laughs") {
    std::string bomb = std::string(kHeader) + "vars:\n  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
    std::string previous = "a";
    for (char c = 'b'; c <= 'j'; ++c) {
      bomb += std::string("  ") + c + ": &" + c + " [";
      for (int i = 0; i < 9; ++i) bomb += (i ? ", *" : "*") + previous;
      bomb += "]\n";
      previous = std::string(1, c);
    }
    bomb += "hosts:\n  a: {}\n";
    Diagnostics d;
    CHECK_FALSE(Parse(bomb, d));
    CHECK(FirstError(d).find("billion laughs") != std::string::npos);
  }
  SUBCASE("binary junk") {
    std::string junk;
    unsigned state = 12345;
    for (int i = 0; i < 100000; ++i) {
      state = state * 1103515245 + 12345;
      junk += static_cast<char>(state >> 16);
    }
    Diagnostics d;
    CHECK_FALSE(Parse(junk, d));
    CHECK(d.has_errors());
  }
  SUBCASE("invalid UTF-8") {
    Diagnostics d;
    CHECK_FALSE(Parse("cluster: demo\nhosts:\n  caf\xe9: {}\n", d));
    CHECK(FirstError(d) == "inv.yaml:3:6: error: invalid UTF-8 (byte \\xe9); inventory and role files must be UTF-8 text");
  }
  SUBCASE("50 MB file") {
    char path[] = "/tmp/clusterctl-big-XXXXXX";
    int fd = ::mkstemp(path);
    REQUIRE(fd >= 0);
    ::close(fd);
    {
      std::ofstream out(path);
      out << kHeader << "hosts:\n";
      std::string line = "  # " + std::string(1000, 'x') + "\n";
      for (int i = 0; i < 50 * 1024; ++i) out << line;
    }
    Diagnostics d;
    CHECK_FALSE(LoadInventory(path, d, TestOptions()));
    CHECK(FirstError(d) == std::string(path) + ": error: file is larger than 16 MiB; refusing to parse it");
    std::remove(path);
  }
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}

TEST_CASE("an inventory that expands past its size limits is refused before the work it would take") {
  // The limits are lowered so that each case is small; the defaults
  // (100,000 hosts, 1,000,000 memberships, 256 MiB of variables) are the
  // same code path with larger numbers.
  InventoryLoadOptions options = TestOptions();
  options.size = {/*max_hosts=*/100, /*max_group_memberships=*/300, /*max_variable_bytes=*/64 * 1024};
  auto parse = [&](const std::string& text, Diagnostics& d) {
    return ParseInventory(text, "inv.yaml", "/inv", d, options);
  };
  SUBCASE("hosts: the pattern that crosses the limit is named, and nothing after it is expanded") {
    Diagnostics d;
    CHECK_FALSE(parse(std::string(kHeader) + "hosts:\n  a[1-60]: {}\n  b[1-60]: {}\n  c[1-99999]: {}\n", d));
    CHECK(d.error_count() == 1);
    CHECK(FirstError(d) == "inv.yaml:4:3: error: host 'b[1-60]' takes the inventory past 100 hosts, the most one "
                           "inventory may define; the hosts after it were not read");
  }
  SUBCASE("exactly at the host limit is fine") {
    Diagnostics d;
    auto inventory = parse(std::string(kHeader) + "hosts:\n  a[1-60]: {}\n  b[1-40]: {}\n", d);
    INFO(d.ToString());
    REQUIRE(inventory);
    CHECK(inventory->hosts.size() == 100);
  }
  SUBCASE("group lists: names listed across all groups are counted together") {
    Diagnostics d;
    std::string text = std::string(kHeader) + "hosts:\n  a[1-100]: {}\ngroups:\n";
    for (int g = 0; g < 5; ++g) text += "  g" + std::to_string(g) + ":\n    hosts: a[1-100]\n";
    CHECK_FALSE(parse(text, d));
    CHECK(d.error_count() == 1);
    CHECK(FirstError(d) == "inv.yaml:12:12: error: 'hosts' of group 'g3': 'a[1-100]' takes the groups past 300 "
                           "listed names in all; the groups after it were not read");
  }
  SUBCASE("groups of groups: inherited memberships count too") {
    // Each group lists one child: 8 names listed, but every group holds all
    // 100 hosts once the children are expanded.
    Diagnostics d;
    std::string text = std::string(kHeader) + "hosts:\n  a[1-100]: {}\ngroups:\n  g0:\n    hosts: a[1-100]\n";
    for (int g = 1; g < 8; ++g) {
      text += "  g" + std::to_string(g) + ":\n    children: [g" + std::to_string(g - 1) + "]\n";
    }
    CHECK_FALSE(parse(text, d));
    CHECK(FirstError(d) == "inv.yaml: error: the groups hold more than 300 (group, host) memberships once groups "
                           "of groups are expanded; clusterctl reads at most that many");
  }
  SUBCASE("variables: every host's copy is counted before any is made") {
    Diagnostics d;
    const std::string big(2000, 'x');
    CHECK_FALSE(parse(std::string(kHeader) + "vars:\n  motd: " + big + "\nhosts:\n  a[1-40]: {}\n", d));
    CHECK(FirstError(d) == "inv.yaml: error: the variables come to about 0 MiB once every host has its own copy "
                           "(40 hosts), past the limit of 0 MiB; keep large values in files beside the inventory");
  }
  SUBCASE("a host pattern's own variables are counted once per host") {
    Diagnostics d;
    const std::string big(1000, 'x');
    auto inventory = parse(std::string(kHeader) + "hosts:\n  a[1-40]:\n    vars: {motd: " + big + "}\n", d);
    REQUIRE(inventory);
    CHECK(inventory->hosts[39].vars["motd"] == big);
    Diagnostics over;
    CHECK_FALSE(parse(std::string(kHeader) + "hosts:\n  a[1-70]:\n    vars: {motd: " + big + "}\n", over));
    CHECK(FirstError(over).find("once every host has its own copy (70 hosts)") != std::string::npos);
  }
}

TEST_CASE("a range of undefined hosts in a group is one error, not one per name") {
  Diagnostics d;
  CHECK_FALSE(Parse(std::string(kHeader) + "hosts:\n  node[1-4]: {}\ngroups:\n  compute:\n    hosts:\n"
                                           "      - nod1\n      - gpu[01-50,52]\n      - node[1-4]\n",
                    d));
  CHECK(d.error_count() == 2);
  CHECK(d.ToString() ==
        "inv.yaml:7:9: error: group 'compute' names host 'nod1', which is not defined under 'hosts' "
        "(did you mean 'node1'?)\n"
        "inv.yaml:8:9: error: group 'compute' names 51 hosts (gpu[01-50,52]) that are not defined under 'hosts'\n");
}

TEST_CASE("a backup controller is one known host of its own, beside one primary") {
  const std::string hosts = std::string(kHeader) + "hosts:\n  head01: {}\n  head02: {}\n  head03: {}\ngroups:\n";
  SUBCASE("a primary and a backup load") {
    Diagnostics d;
    auto inventory = Parse(hosts + "  controller:\n    hosts: head01\n  controller_backup:\n    hosts: head02\n", d);
    REQUIRE(inventory);
    CHECK(d.error_count() == 0);
    CHECK(inventory->MembersOf(kGroupControllerBackup) == std::vector<std::string>{"head02"});
  }
  const std::pair<std::string, std::string> cases[] = {
      {"  controller:\n    hosts: head01\n  controller_backup:\n    hosts: head04\n",
       "inv.yaml:10:12: error: group 'controller_backup' names host 'head04', which is not defined under 'hosts' (did you "
       "mean 'head01'?)"},
      {"  controller:\n    hosts: head01,head02\n",
       "inv.yaml:7:3: error: group 'controller' has 2 hosts (head01, head02); Slurm has one primary controller: put a "
       "backup in group 'controller_backup'"},
      {"  controller:\n    hosts: head01\n  controller_backup:\n    hosts: head02,head03\n",
       "inv.yaml:9:3: error: group 'controller_backup' has 2 hosts (head02, head03); it takes one backup controller"},
      {"  controller_backup:\n    hosts: head02\n",
       "inv.yaml:7:3: error: group 'controller_backup' has head02 but group 'controller' has no host: a backup needs a "
       "primary"},
      {"  controller:\n    hosts: head01\n  controller_backup:\n    hosts: head01\n",
       "inv.yaml:9:3: error: host 'head01' is in both 'controller' and 'controller_backup': the backup must be another "
       "host"},
  };
  for (const auto& [groups, error] : cases) {
    CAPTURE(groups);
    Diagnostics d;
    CHECK_FALSE(Parse(hosts + groups, d));
    CHECK(FirstError(d) == error);
  }
}

TEST_CASE("the bundled example inventories load without errors") {
  for (const char* name : {"small.yaml", "superpod.yaml"}) {
    CAPTURE(name);
    Diagnostics d;
    auto inventory = LoadInventory(testing::SourceDir() + "/inventory/examples/" + name, d);
    INFO(d.ToString());
    CHECK(inventory.has_value());
  }
}

TEST_CASE("the superpod example resolves rack-level overrides") {
  Diagnostics d;
  auto inventory = LoadInventory(testing::SourceDir() + "/inventory/examples/superpod.yaml", d);
  REQUIRE(inventory);
  const Host* gpu100 = inventory->FindHost("gpu100");
  REQUIRE(gpu100);
  CHECK(gpu100->address == "10.0.3.36");
  CHECK(gpu100->connection.port == 2222);
  CHECK(gpu100->connection.EffectiveBecome() == Become::kSudo);
  CHECK(gpu100->vars["validate_ib_rate_gbps"] == 400);
  CHECK(inventory->FindHost("gpu001")->vars["validate_ib_rate_gbps"] == 200);
  CHECK(inventory->FindHost("gpu001")->connection.jump_host->ToString() == "clusteradmin@bastion.example.org:22");
}

}  // namespace clusterctl
