#include "controller/engine/facts_check.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "common/strings.h"
#include "controller/engine/fake_fleet.h"
#include "tests/unit/test_paths.h"

namespace clusterctl {
namespace {

// Every `facts.a.b` that the project's roles and templates read (a loop's
// `item.facts.a.b` included).
std::set<std::string> FactPathsReadByRoles() {
  std::set<std::string> paths;
  const std::regex read(R"(facts((\.[A-Za-z_][A-Za-z0-9_]*)+))");
  for (const char* folder : {"/roles", "/templates"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(testing::SourceDir() + folder)) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      const std::string content = text.str();
      for (std::sregex_iterator m(content.begin(), content.end(), read), end; m != end; ++m) {
        paths.insert((*m)[1].str().substr(1));
      }
    }
  }
  return paths;
}

}  // namespace

TEST_CASE("facts check: every fact a role or template reads is checked") {
  const std::vector<std::string> listed = CheckedFactPaths();
  const std::set<std::string> read = FactPathsReadByRoles();
  CHECK(read.count("pci.gpu_count") == 1);  // the roles were found
  for (const std::string& path : read) {
    CAPTURE(path);
    CHECK(std::find(listed.begin(), listed.end(), path) != listed.end());
  }
}

TEST_CASE("facts check: the agent's facts pass; a missing or mistyped fact is named with what it holds") {
  CHECK(FactsProblems(testing::FakeFacts("n", 8)).empty());
  nlohmann::json full = testing::FakeFacts("n", 1);
  full["os"] = {{"id", "ubuntu"}, {"family", "debian"}, {"version_id", "24.04"}, {"version_codename", "noble"}};
  full["nvidia_driver"] = nullptr;
  full["kernels"] = {{"installed", {"6.8.0-45-generic"}}};
  full["gpudirect"] = {{"kernel_modules", "open"}, {"recommended", nullptr}, {"dmabuf", false}};
  full["nfs"] = {{"kernel_client", true}};
  CHECK(FactsProblems(full).empty());

  nlohmann::json facts = testing::FakeFacts("n");
  facts.erase("pci");
  CHECK(FactsProblems(facts) == std::vector<std::string>{"pci is missing"});
  facts["pci"] = {{"gpu_count", "many"}, {"hca_count", 1.5}};
  CHECK(FactsProblems(facts) == std::vector<std::string>{"pci.gpu_count is \"many\", not a count",
                                                         "pci.hca_count is 1.5, not a count", "pci.ib_hca_count is missing",
                                                         "pci.nvswitch_count is missing"});
  facts = testing::FakeFacts("n");
  facts["os"] = "debian";
  facts["kernels"] = {{"installed", {"6.1", 7}}};
  facts["nvidia_driver"] = "550\n";
  const std::vector<std::string> problems = FactsProblems(facts);
  REQUIRE(problems.size() == 3);
  CHECK(problems[0] == "os is \"debian\", not a section");
  CHECK(problems[1].rfind("nvidia_driver is ", 0) == 0);
  CHECK(problems[2].rfind("kernels.installed is ", 0) == 0);
  CHECK(FactsProblems(nullptr).size() == 1);
  CHECK(FactsProblems("\xff\xfe").size() == 1);  // not UTF-8, and no throw
  // The simulated-driver marker is a boolean: what reads it never guesses.
  facts = testing::FakeFacts("n");
  facts["nvidia"] = {{"simulated", "yes"}};
  CHECK(FactsProblems(facts) == std::vector<std::string>{"nvidia.simulated is \"yes\", not true or false"});
}

}  // namespace clusterctl

namespace clusterctl {

TEST_CASE("facts check: values of the right type a node cannot have are named with the bound they break") {
  nlohmann::json facts = testing::FakeFacts("n", 8);
  facts["memory"]["total_mib"] = 100;
  facts["kernels"]["installed"] = {"6.1.0-18-amd64", "6.1.0-18-amd64~"};
  facts["cpu"]["cpus"] = 1000000;
  facts["os"]["version_codename"] = "bookworm x";
  facts["interfaces"] = {{{"name", "ib0"}, {"link_type", "infiniband"}}, {{"name", "a/b"}}};
  const std::vector<std::string> problems = FactsProblems(facts);
  REQUIRE(problems.size() == 5);
  CHECK(problems[0] ==
        "os.version_codename is \"bookworm x\": not an os-release word (lower-case letters, digits, '.', '_' and '-' (or nothing))");
  CHECK(problems[1] == "kernels.installed[1] is \"6.1.0-18-amd64~\": not a kernel name (letters, digits, '.', '_', '+' and '-', "
                       "the first a letter, digit or '_')");
  CHECK(problems[2] == "cpu.cpus is 1000000, more than a node has (at most 16384)");
  CHECK(problems[3] == "memory.total_mib is 100, less than a node has (at least 1024)");
  CHECK(problems[4].rfind("interfaces[1].name is \"a/b\": not an interface name", 0) == 0);
}

TEST_CASE("facts check: each generated edge value passes or fails as it says, on the fact it names") {
  const std::vector<FactValueCase> cases = FactValueCases();
  size_t refused = 0;
  for (const FactValueCase& c : cases) {
    CAPTURE(c.path);
    CAPTURE(c.what);
    // Placed into well facts: the path's sections (a list's first element) made as needed.
    nlohmann::json facts = testing::FakeFacts("n", 1);
    nlohmann::json* at = &facts;
    const std::vector<std::string> keys = Split(c.path, '.');
    for (size_t i = 0; i + 1 < keys.size(); ++i) {
      const bool each = EndsWith(keys[i], "[]");
      nlohmann::json& next = (*at)[each ? keys[i].substr(0, keys[i].size() - 2) : keys[i]];
      if (each) {
        next = nlohmann::json::array({nlohmann::json::object()});
        at = &next[0];
      } else {
        if (!next.is_object()) next = nlohmann::json::object();
        at = &next;
      }
    }
    (*at)[keys.back()] = c.value;
    const std::vector<std::string> problems = FactsProblems(facts);
    if (c.allowed) {
      CHECK_MESSAGE(problems.empty(), Join(problems, "; "));
    } else {
      ++refused;
      REQUIRE(problems.size() == 1);
      std::string shown = c.path;
      if (const size_t at_list = shown.find("[]"); at_list != std::string::npos) shown.replace(at_list, 2, "[0]");
      CHECK_MESSAGE(problems[0].rfind(shown, 0) == 0, problems[0]);
    }
  }
  // Every fact with a bound has refused values: counts, names, versions, lines.
  for (const char* path : {"pci.gpu_count", "memory.total_mib", "cpu.cpus", "kernels.installed", "interfaces[].name",
                           "os.version_codename", "nvidia_driver", "network_stack"}) {
    CAPTURE(path);
    CHECK(std::count_if(cases.begin(), cases.end(), [&](const FactValueCase& c) { return c.path == path && !c.allowed; }) >= 1);
  }
  CHECK(refused > 60);
}

}  // namespace clusterctl
