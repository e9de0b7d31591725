// The built-in catalog's declarations are complete both ways: every name a
// role's templates, step parameters, conditions and loops read is declared
// by that role (or is context: host, facts, cluster, item, secrets), and every
// declared variable is read by some role or by the engine and validate.
#include <doctest/doctest.h>

#include <set>

#include "common/strings.h"
#include "controller/catalog/builtin_variables.h"
#include "controller/catalog/role.h"
#include "tests/unit/test_paths.h"

namespace clusterctl {
namespace {

const std::set<std::string> kContext = {"host", "facts", "cluster", "item", "secrets"};

// Read by C++ rather than by role files: the cluster views
// (controller/views/slurm_view.cc, nfs_view.cc) and validate
// (the check specs under controller/validate/checks/).
const std::set<std::string> kReadByTheEngine = {
    "slurm_partitions", "slurm_node_group", "slurm_memory_reserve_mib", "slurm_gpu_autodetect", "nfs_exports", "nfs_network",
    "nfs_versions", "nfs_mounts", "nfs_mount_options", "nfs_rdma", "nfs_automount", "nfs_external_mounts", "nfs_fscache_dir", "ipoib_mtu",
    "prometheus_listen", "prometheus_port", "prometheus_scrape_interval", "slurm_health_checks",
    "ldap_base_dn", "ldap_uri",  // the directory view
    "log_server",                // the logs view
    "maintenance_silence_clear_wait"};  // FindAlertmanager (engine/alertmanager_silences.cc)

// What a role reads: `certain` outside any section (its own variables or
// context), `anywhere` at any depth (inside a section a name may also be a
// field of the section's item).
struct Reads {
  std::set<std::string> certain, anywhere;
  void Add(const Template& t) {
    for (const std::string& name : t.TopLevelNames()) certain.insert(name);
    for (const std::string& name : t.NamesAnywhere()) anywhere.insert(name);
  }
  void Add(const std::string& name) {
    certain.insert(name);
    anywhere.insert(name);
  }
};

void AddParamNames(const nlohmann::json& value, const SourceLocation& where, Reads& names) {
  if (value.is_string() && value.get_ref<const std::string&>().find("{{") != std::string::npos) {
    Diagnostics ignored;
    if (auto t = Template::Parse(value.get<std::string>(), where.file, ignored)) names.Add(*t);
  }
  if (value.is_structured()) {
    for (const auto& item : value) AddParamNames(item, where, names);
  }
}

Reads NamesRead(const Role& role) {
  Reads names;
  if (role.when) {
    for (const std::string& name : role.when->Names()) names.Add(name);
  }
  for (const auto* steps : {&role.steps, &role.handlers}) {
    for (const RoleStep& step : *steps) {
      if (step.content_template) names.Add(*step.content_template);
      AddParamNames(step.params, step.where, names);
      if (step.when) {
        for (const std::string& name : step.when->Names()) names.Add(name);
      }
      if (!step.loop.empty()) names.Add(step.loop.substr(0, step.loop.find('.')));
    }
  }
  return names;
}

TEST_CASE("every variable a built-in role reads is declared, and every declared one is read") {
  Diagnostics diagnostics;
  auto catalog = Catalog::Load({{testing::SourceDir() + "/roles"}, {testing::SourceDir() + "/templates"}}, diagnostics);
  REQUIRE(catalog);
  std::set<std::string> read_anywhere = kReadByTheEngine;
  for (const auto& [name, role] : catalog->roles()) {
    CAPTURE(name);
    CHECK(role.format_version == kRoleFormatVersion);
    const Reads reads = NamesRead(role);
    read_anywhere.insert(reads.anywhere.begin(), reads.anywhere.end());
    for (const std::string& read : reads.certain) {
      if (kContext.count(read)) continue;
      CAPTURE(read);
      CHECK_MESSAGE(role.variables.count(read), "role " << name << " reads '" << read << "', which it does not declare");
    }
  }
  for (const auto& [name, spec] : catalog->variables()) {
    if (IsBuiltIn(spec)) continue;  // read by the check (or the deploy's kind) that declares it, whose unit tests cover each
    CHECK_MESSAGE(read_anywhere.count(name), "variable '" << name << "' (role " << spec.declared_by << ") is read by nothing");
  }
  CHECK(NamesRead(*catalog->Find("chrony")).anywhere.count("ntp_servers"));  // the walk sees templates
}

}  // namespace
}  // namespace clusterctl
