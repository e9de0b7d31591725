#include "inventory/ini_import.h"

#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "inventory/loader.h"
#include "tests/unit/test_paths.h"

namespace clusterctl {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

IniImportOptions Options(std::set<std::string> known = {}) {
  IniImportOptions options;
  options.cluster_name = "c";
  options.known_variables = std::move(known);
  return options;
}

std::optional<IniImport> Import(const std::string& text, Diagnostics& diagnostics,
                                std::set<std::string> known = {}) {
  return ImportAnsibleIni(text, "x.ini", Options(std::move(known)), diagnostics);
}

bool HasNoteContaining(const IniImport& import, const std::string& text) {
  for (const std::string& note : import.notes) {
    if (note.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a DeepOps inventory imports into a valid inventory with the well-known groups") {
  std::string ini = ReadFile(testing::SourceDir() + "/inventory/examples/deepops-inventory.ini");
  Diagnostics d;
  IniImportOptions import_options = Options();
  import_options.cluster_name = "lab";
  std::optional<IniImport> import = ImportAnsibleIni(ini, "deepops.ini", import_options, d);
  INFO(d.ToString());
  REQUIRE(import);
  const auto& doc = import->inventory;
  CHECK(doc["cluster"] == "lab");
  CHECK(doc["connection"]["user"] == "ubuntu");
  CHECK(doc["connection"]["become"] == "sudo");
  CHECK(doc["connection"]["jump_host"] == "ubuntu@10.0.0.1");
  CHECK(doc["connection"]["key_file"] == "~/.ssh/id_rsa");
  // DeepOps's slurm_version is a source version, not a package version.
  CHECK_FALSE(doc.contains("vars"));
  CHECK(HasNoteContaining(*import, "[all:vars]: slurm_version not imported: DeepOps builds Slurm from"));
  // Consecutive hosts with consecutive addresses fold into one range.
  CHECK(doc["hosts"]["gpu[01-04]"]["address"] == "10.0.2.[1-4]");
  CHECK(doc["groups"]["controller"]["hosts"][0] == "login01");
  CHECK(doc["groups"]["compute"]["hosts"][0] == "gpu[01-04]");
  CHECK(doc["groups"]["nfs_server"]["hosts"][0] == "login01");
  CHECK(doc["groups"]["nfs_clients"]["children"][0] == "compute");
  CHECK(doc["groups"]["slurm-cluster"]["children"] == nlohmann::ordered_json({"controller", "compute"}));
  CHECK_FALSE(doc["groups"].contains("kube-master"));
  CHECK(HasNoteContaining(*import, "group 'kube-master' (1 hosts) not imported"));
  CHECK(HasNoteContaining(*import, "StrictHostKeyChecking=no"));
  CHECK(HasNoteContaining(*import, "group 'slurm-master' imported as 'controller'"));

  // The rendered YAML is itself a valid inventory (key file existence aside).
  InventoryLoadOptions options;
  options.file_exists = [](const std::string&) { return true; };
  Diagnostics load;
  auto inventory = ParseInventory(RenderImport(*import, "deepops.ini"), "imported.yaml", "/tmp", load, options);
  INFO(load.ToString());
  REQUIRE(inventory);
  CHECK(inventory->MembersOf("compute").size() == 4);
  CHECK(inventory->FindHost("gpu03")->address == "10.0.2.3");
  CHECK(inventory->FindHost("gpu03")->connection.jump_host->ToString() == "ubuntu@10.0.0.1:22");
}

TEST_CASE("import never copies passwords and names unmapped Ansible variables") {
  Diagnostics d;
  auto import = Import(
      "[all]\nn1 ansible_host=10.0.0.1 ansible_become_pass=s3cret ansible_python_interpreter=/usr/bin/python3\n", d);
  REQUIRE(import);
  std::string yaml = RenderImport(*import, "x.ini");
  CHECK(yaml.find("s3cret") == std::string::npos);
  CHECK(HasNoteContaining(*import, "ansible_become_pass not imported: passwords do not belong in the inventory"));
  CHECK(HasNoteContaining(*import, "ansible_python_interpreter has no clusterctl equivalent"));
}

TEST_CASE("import handles ProxyJump and Ansible host ranges") {
  Diagnostics d;
  auto import = Import("[slurm-node]\nnode[1:3]\n[all:vars]\nansible_ssh_common_args=\"-o ProxyJump=admin@gw:2222\"\n", d);
  REQUIRE(import);
  CHECK(import->inventory["connection"]["jump_host"] == "admin@gw:2222");
  CHECK(import->inventory["groups"]["compute"]["hosts"][0] == "node[1-3]");
}

TEST_CASE("import reports malformed INI with the line") {
  struct Case {
    const char* text;
    const char* expected;
  };
  const Case cases[] = {
      {"[all\nn1\n", "x.ini:1:1: error: section header without closing ']'\n"},
      {"[g:hostz]\nn1\n", "x.ini:1:4: error: unknown section kind ':hostz' (expected :children or :vars)\n"},
      {"[all:vars]\njust_a_word\n", "x.ini:2:1: error: expected key=value in [all:vars]\n"},
      {"[all]\nn1 oops\n", "x.ini:2:1: error: expected key=value after host 'n1', got 'oops'\n"},
      {"# nothing\n", "x.ini: error: no hosts found (expected lines like 'gpu01 ansible_host=10.0.2.1')\n"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    Diagnostics d;
    CHECK_FALSE(Import(c.text, d));
    CHECK(d.ToString() == c.expected);
  }
}

}  // namespace clusterctl

namespace clusterctl {

TEST_CASE("import refuses a host name that is not one, before expanding the rest (a fuzz find)") {
  // Seven ranges of four: 16384 names of 60+ characters took 28 s to import
  // under the fuzzer, each name invalid anyway.
  Diagnostics diagnostics;
  auto import = ImportAnsibleIni("[slurm-node]\nlogin!0sh/gpu0[1:4]_a[1:4]_b[1:4]_c[1:4]_d[1:4]_e[1:4]_f[1:4]\n",
                                 "hosts.ini", Options(), diagnostics);
  CHECK_FALSE(import);
  CHECK(diagnostics.ToString().find("hosts.ini:2:1: error: host 'login!0sh/gpu01_a1_b1_c1_d1_e1_f1'") !=
        std::string::npos);
}

}  // namespace clusterctl

namespace clusterctl {

TEST_CASE("INI values keep their text unless plainly integers or booleans, and the YAML keeps them so") {
  Diagnostics d;
  auto import = Import("[all]\nn1 ansible_host=10.0.0.1 a=\"007\" b=23.10\n[all:vars]\nc=23.10\nd=1e3\ne=0x10\n"
                       "f=010\ng='42'\nh=yes\ni=False\nj=42\nk=on\n",
                       d, {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"});
  INFO(d.ToString());
  REQUIRE(import);
  const auto& vars = import->inventory["vars"];
  CHECK(vars["c"] == "23.10");
  CHECK(vars["d"] == "1e3");
  CHECK(vars["e"] == "0x10");
  CHECK(vars["f"] == "010");
  CHECK(vars["g"] == "42");
  CHECK(vars["h"] == true);
  CHECK(vars["i"] == false);
  CHECK(vars["j"] == 42);
  CHECK(vars["k"] == "on");
  CHECK(import->inventory["hosts"]["n1"]["vars"]["a"] == "007");
  CHECK(import->inventory["hosts"]["n1"]["vars"]["b"] == "23.10");

  // Read back by the inventory loader, every value has the same type and text.
  Diagnostics load;
  InventoryLoadOptions options;
  auto inventory = ParseInventory(RenderImport(*import, "x.ini"), "imported.yaml", "/tmp", load, options);
  INFO(load.ToString());
  REQUIRE(inventory);
  const nlohmann::json& resolved = inventory->FindHost("n1")->vars;
  for (const char* key : {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}) {
    CAPTURE(key);
    CHECK(resolved[key] == nlohmann::json(key[0] == 'a' || key[0] == 'b' ? import->inventory["hosts"]["n1"]["vars"][key]
                                                                          : vars[key]));
  }
}

}  // namespace clusterctl

namespace clusterctl {

TEST_CASE("group_vars and host_vars apply in Ansible's precedence, at their levels") {
  namespace fs = std::filesystem;
  std::string pattern = (fs::temp_directory_path() / "ini-import-XXXXXX").string();
  const fs::path dir = ::mkdtemp(pattern.data());
  fs::create_directories(dir / "group_vars");
  fs::create_directories(dir / "host_vars");
  std::ofstream(dir / "group_vars/all.yml") << "ipoib_mtu: 2044\n";
  std::ofstream(dir / "group_vars/slurm-node.yml") << "nfs_threads: 32\n";
  std::ofstream(dir / "host_vars/n2.yml") << "nfs_threads: 64\nansible_host: 10.0.0.22\n";
  IniImportOptions options = Options({"ipoib_mtu", "nfs_threads"});
  options.vars_dir = dir.string();
  Diagnostics d;
  auto import = ImportAnsibleIni(
      "[slurm-node]\nn1 ansible_host=10.0.0.1\nn2 ansible_host=10.0.0.2 nfs_threads=8\n"
      "[slurm-node:vars]\nipoib_mtu=4092\nnfs_threads=16\n[all:vars]\nipoib_mtu=1500\n",
      "x.ini", options, d);
  fs::remove_all(dir);
  INFO(d.ToString());
  REQUIRE(import);
  const auto& doc = import->inventory;
  CHECK(doc["vars"]["ipoib_mtu"] == 2044);                     // group_vars/all over [all:vars]
  CHECK_FALSE(doc["groups"]["compute"]["vars"].contains("ipoib_mtu"));  // and over [slurm-node:vars]
  CHECK(HasNoteContaining(*import, "[slurm-node:vars]: ipoib_mtu not imported: group_vars/all sets it"));
  CHECK(doc["groups"]["compute"]["vars"]["nfs_threads"] == 32);  // group_vars/slurm-node over [slurm-node:vars]
  CHECK(doc["hosts"]["n2"]["vars"]["nfs_threads"] == 64);        // host_vars over the INI's host line
  CHECK(doc["hosts"]["n2"]["address"] == "10.0.0.22");
}

}  // namespace clusterctl
