#include "agent/resources/registry.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include "tests/unit/test_paths.h"

namespace clusterctl::agent {

TEST_CASE("every resource kind registered itself with its parameters; only reboot has no agent side") {
  const std::vector<std::string> kinds = resources::ResourceKinds();
  CHECK(kinds == std::vector<std::string>{"assert", "block", "command", "copy", "directory", "file", "group",
                                          "kernel_module", "line", "mount", "nvidia_mig", "package", "reboot", "repository",
                                          "service", "slurm_accounting", "symlink", "sysctl", "user"});
  for (const std::string& name : kinds) {
    CAPTURE(name);
    const ResourceKind* kind = FindResourceKind(name);
    REQUIRE(kind);
    CHECK(kind->spec.kind == name);
    CHECK_FALSE(kind->spec.summary.empty());
    CHECK(static_cast<bool>(kind->run) == (name != "reboot"));
    CHECK(resources::FindResourceSpec(name) == &kind->spec);
  }
  CHECK_FALSE(FindResourceKind("reformat_disk"));
}

TEST_CASE("the agent refuses a reboot request as a resource: the controller carries it out") {
  ResourceHost host;
  ResourceOutcome outcome = RunResource({"reboot", nlohmann::json::object(), "", true}, host);
  CHECK(outcome.failed);
  CHECK(outcome.error == "reboot is carried out by the controller, not by the agent");
  CHECK(host.log().empty());
}

TEST_CASE("docs/roles.md documents every registered resource kind and each of its parameters") {
  std::ifstream in(testing::SourceDir() + "/docs/roles.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  for (const resources::ResourceSpec& spec : resources::ResourceSpecs()) {
    CAPTURE(spec.kind);
    const size_t row = doc.find("| `" + spec.kind + "` |");
    REQUIRE(row != std::string::npos);
    const std::string line = doc.substr(row, doc.find('\n', row) - row);
    for (const resources::ParamSpec& param : spec.params) {
      if (param.internal) continue;
      CAPTURE(param.name);
      CHECK(line.find("`" + param.name + "`") != std::string::npos);
    }
  }
}

}  // namespace clusterctl::agent
