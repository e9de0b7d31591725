#include "controller/catalog/variable_docs.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/unit/test_paths.h"

namespace clusterctl {
namespace {

constexpr const char* kBegin = "<!-- BEGIN variables: generated from roles/*.yaml and validate's declarations";
constexpr const char* kEnd = "<!-- END variables -->";

std::optional<Catalog> BuiltInCatalog() {
  Diagnostics diagnostics;
  auto catalog = Catalog::Load({{testing::SourceDir() + "/roles"}, {testing::SourceDir() + "/templates"}}, diagnostics);
  INFO(diagnostics.ToString());
  REQUIRE(catalog);
  return catalog;
}

TEST_CASE("type and default lines") {
  auto catalog = BuiltInCatalog();
  CHECK(DescribeType(*catalog->FindVariable("rdma_stack")) == "one of inbox, mlnx_ofed, doca_ofed");
  CHECK(DescribeType(*catalog->FindVariable("slurm_def_mem_per_cpu")) == "integer, at least 1");
  CHECK(DescribeType(*catalog->FindVariable("ntp_servers")) == "list of string (address)");
  CHECK(DescribeType(*catalog->FindVariable("rdma_ofed_bundle")) == "string (a file beside the inventory)");
  CHECK(DescribeDefault(*catalog->FindVariable("slurm_extra_config")) == "\"\"");
  auto rows = VariableRows(*catalog->FindVariable("slurm_partitions"));
  REQUIRE(rows.size() == 6);
  CHECK(rows[2].name == "slurm_partitions[].group");
  CHECK(rows[1].type == "string, required");
}

// docs/roles.md's variable tables are the role files' declarations. To
// rewrite them after changing a declaration:
//   CLUSTERCTL_UPDATE_DOCS=1 build/tests/unit_tests -tc='docs/roles.md*'
TEST_CASE("docs/roles.md's variable tables match the declarations") {
  const std::string path = testing::SourceDir() + "/docs/roles.md";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string doc = text.str();
  const size_t begin = doc.find(kBegin);
  REQUIRE_MESSAGE(begin != std::string::npos, "docs/roles.md lacks the line starting " << kBegin);
  const size_t body = doc.find('\n', begin) + 1;
  const size_t end = doc.find(kEnd, body);
  REQUIRE(end != std::string::npos);
  const std::string generated = VariablesMarkdown(*BuiltInCatalog()) + "\n";
  if (doc.substr(body, end - body) != generated && std::getenv("CLUSTERCTL_UPDATE_DOCS")) {
    doc.replace(body, end - body, generated);
    std::ofstream(path) << doc;
    MESSAGE("rewrote the variable tables of " << path);
    return;
  }
  CHECK_MESSAGE(doc.substr(body, end - body) == generated,
                "docs/roles.md's variable tables differ from the role files: run "
                "CLUSTERCTL_UPDATE_DOCS=1 build/tests/unit_tests -tc='docs/roles.md*' and review the diff");
}

}  // namespace
}  // namespace clusterctl
