#include "controller/engine/facts_check.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

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
}

}  // namespace clusterctl
