#include "inventory/ansible_variables.h"

#include <doctest/doctest.h>

namespace clusterctl {
namespace {

struct Fixture {
  std::set<std::string> known = {"ntp_servers", "nvidia_driver_branch", "nvidia_driver_modules", "slurm_version",
                                 "nfs_exports", "ipoib_mtu"};
  std::vector<std::string> notes;
  VariableImporter importer{known, notes};
  ImportedLevel level;

  void Add(const std::string& name, nlohmann::json value, bool vault = false) {
    importer.Add({name, std::move(value), "group_vars/all.yml:3", vault}, level, false);
  }
  bool Noted(const std::string& text) const {
    for (const std::string& note : notes) {
      if (note.find(text) != std::string::npos) return true;
    }
    return false;
  }
};

}  // namespace

TEST_CASE("DeepOps variables with a clusterctl equivalent are converted, with a note when renamed") {
  Fixture f;
  f.Add("chrony_config_server", {"0.pool.ntp.org", "1.pool.ntp.org"});
  f.Add("nvidia_driver_ubuntu_use_open_kernel_modules", true);
  f.Add("nvidia_driver_branch", 580);
  CHECK(f.level.vars["ntp_servers"] == nlohmann::json({"0.pool.ntp.org", "1.pool.ntp.org"}));
  CHECK(f.level.vars["nvidia_driver_modules"] == "open");
  CHECK(f.level.vars["nvidia_driver_branch"] == "580");
  CHECK(f.Noted("group_vars/all.yml:3: chrony_config_server imported as ntp_servers"));
  CHECK_FALSE(f.Noted("nvidia_driver_branch"));
}

TEST_CASE("a DeepOps variable whose clusterctl namesake means something else is left out, saying why") {
  Fixture f;
  f.Add("slurm_version", "23.10");
  f.Add("nfs_exports", nlohmann::json::array({{{"path", "/home"}, {"options", "*(rw,sync)"}}}));
  CHECK(f.level.vars.empty());
  CHECK(f.Noted("slurm_version not imported: DeepOps builds Slurm from SchedMD's source"));
  CHECK(f.Noted("nfs_exports not imported: DeepOps's entries are /etc/exports options"));
}

TEST_CASE("clusterctl's own variables pass through; unknown ones are left out with a note each") {
  Fixture f;
  f.Add("ipoib_mtu", 4092);
  f.Add("docker_install", true);
  f.Add("chrony_config_server", 42);  // not a list of names
  CHECK(f.level.vars == nlohmann::ordered_json({{"ipoib_mtu", 4092}}));
  CHECK(f.Noted("docker_install not imported: no clusterctl role declares it"));
  CHECK(f.Noted("chrony_config_server not imported: its value does not fit clusterctl's ntp_servers"));
}

TEST_CASE("secrets are never written: password names, vault values, passwords inside a value") {
  Fixture f;
  f.known.insert("users");
  f.Add("slurm_db_password", "s3cret");
  f.Add("ipoib_mtu", "ciphertext", true);
  f.Add("users", nlohmann::json::array({{{"name", "nvidia"}, {"password", "$6$hash"}}}));
  CHECK(f.level.vars.empty());
  CHECK(f.notes.size() == 3);
  CHECK(f.Noted("slurm_db_password not imported: it holds a password or secret"));
}

TEST_CASE("a higher level's secret removes what a lower level set under that name") {
  Fixture f;
  f.Add("ipoib_mtu", 2044);
  f.Add("ipoib_mtu", "ciphertext", true);
  CHECK_FALSE(f.level.vars.contains("ipoib_mtu"));
}

TEST_CASE("Ansible's connection variables become the address and connection settings, from any source") {
  Fixture f;
  f.importer.Add({"ansible_host", "10.0.0.5", "host_vars/gpu01.yml:1", false}, f.level, true);
  f.importer.Add({"ansible_port", 2222, "host_vars/gpu01.yml:2", false}, f.level, true);
  f.importer.Add({"ansible_become", true, "host_vars/gpu01.yml:3", false}, f.level, true);
  f.importer.Add({"ansible_ssh_common_args", "-o ProxyJump=admin@gw", "x", false}, f.level, true);
  f.importer.Add({"ansible_become_password", "pw", "host_vars/gpu01.yml:4", false}, f.level, true);
  CHECK(f.level.address == "10.0.0.5");
  CHECK(f.level.connection["port"] == 2222);
  CHECK(f.level.connection["become"] == "sudo");
  CHECK(f.level.connection["jump_host"] == "admin@gw");
  CHECK(f.Noted("host_vars/gpu01.yml:4: ansible_become_password not imported: passwords do not belong"));
}

}  // namespace clusterctl
