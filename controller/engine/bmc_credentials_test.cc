// secrets.bmcs: the BMCs' passwords read from their files for the IPMI
// exporter's config, only where there is a monitoring host, and refused
// from a file others may read.
#include "controller/engine/bmc_credentials.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "inventory/loader.h"

namespace clusterctl {
namespace {

struct PasswordDir {
  std::string path;
  PasswordDir() {
    char name[] = "/tmp/clusterctl-bmc-credentials-XXXXXX";
    REQUIRE(::mkdtemp(name) != nullptr);
    path = name;
  }
  ~PasswordDir() {
    for (const char* f : {"/node01.pw", "/node02.pw"}) ::unlink((path + f).c_str());
    ::rmdir(path.c_str());
  }
  void Write(const std::string& file, const std::string& text, mode_t mode) const {
    std::ofstream(path + "/" + file) << text;
    ::chmod((path + "/" + file).c_str(), mode);
  }
};

Inventory Parse(const std::string& dir, bool monitoring) {
  std::string text = R"(cluster: c
bmc: {user: admin}
hosts:
  node01: {address: 10.0.1.1, bmc: {address: 10.0.9.1, password_file: node01.pw}}
  node02: {address: 10.0.1.2, bmc: {address: 10.0.9.2, password_file: node02.pw, interface: lan}}
  node03: {address: 10.0.1.3}
)";
  if (monitoring) text += "groups:\n  monitoring: {hosts: node03}\n";
  InventoryLoadOptions options;
  options.file_exists = [](const std::string&) { return true; };  // what the reading finds is the test
  Diagnostics d;
  auto inventory = ParseInventory(text, "inv.yaml", dir, d, options);
  REQUIRE_MESSAGE(inventory, d.ToString());
  return *inventory;
}

}  // namespace

TEST_CASE("secrets.bmcs holds each BMC's target, user, driver and the first line of its password file") {
  PasswordDir dir;
  dir.Write("node01.pw", "s3cret-one-1234\nsecond line\n", 0600);
  dir.Write("node02.pw", "s3cret-two-5678\r\n", 0400);
  BmcCredentials c = ReadBmcCredentials(Parse(dir.path, true));
  REQUIRE_MESSAGE(c.problems.empty(), c.problems.front());
  REQUIRE(c.list.size() == 2);
  CHECK(c.list[0] == nlohmann::json({{"name", "node01"}, {"target", "10.0.9.1"}, {"user", "admin"},
                                      {"driver", "LAN_2_0"}, {"password", "s3cret-one-1234"}}));
  CHECK(c.list[1]["password"] == "s3cret-two-5678");
  CHECK(c.list[1]["driver"] == "LAN");
  CHECK(c.passwords.at("bmc password of node02") == "s3cret-two-5678");
}

TEST_CASE("secrets.bmcs is read only where a monitoring host reads it, and refuses an open file") {
  PasswordDir dir;
  dir.Write("node01.pw", "s3cret-one-1234\n", 0644);
  CHECK(ReadBmcCredentials(Parse(dir.path, false)).list.empty());  // no monitoring host: no file read, no problem
  CHECK(ReadBmcCredentials(Parse(dir.path, false)).problems.empty());
  BmcCredentials c = ReadBmcCredentials(Parse(dir.path, true));
  REQUIRE(c.problems.size() == 2);
  CHECK(c.problems[0] == "bmc password file " + dir.path + "/node01.pw may be read by others (mode 0644): chmod 600 it"
                         " (host node01, for the IPMI exporter)");
  CHECK(c.problems[1] == "bmc password file " + dir.path + "/node02.pw cannot be read (host node02, for the IPMI exporter)");
  CHECK(c.list.empty());
  CHECK(c.passwords.empty());

  dir.Write("node01.pw", "pa\"ss\\word\n", 0600);
  dir.Write("node02.pw", "fine-password\n", 0600);
  BmcCredentials quoted = ReadBmcCredentials(Parse(dir.path, true));
  REQUIRE(quoted.problems.size() == 1);
  CHECK(quoted.problems[0] == "bmc password file " + dir.path + "/node01.pw holds a character the IPMI exporter's config"
                              " cannot quote (\", \\ or a control character) (host node01, for the IPMI exporter)");
  CHECK(quoted.list.size() == 1);
}

}  // namespace clusterctl
