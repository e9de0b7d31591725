#include "controller/catalog/variable_spec.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "common/strings.h"
#include "common/yaml_doc.h"

namespace clusterctl {
namespace {

using json = nlohmann::json;

// Parses one declaration written in YAML; errors come back in `errors`.
std::optional<VariableSpec> Declared(const std::string& yaml, std::string* errors = nullptr) {
  Diagnostics diagnostics;
  YamlFields fields(diagnostics);
  auto root = ParseYaml(yaml, "r.yaml", YamlLimits{}, diagnostics);
  REQUIRE(root);
  auto spec = ParseVariableSpec(root->entries.at(0).first, root->entries.at(0).second, false, fields);
  if (errors) *errors = diagnostics.ToString();
  return spec;
}

std::string Problems(const VariableSpec& spec, const json& value, const std::string& dir = "/nonexistent") {
  return Join(CheckVariableValue(spec, value, spec.name, {dir}), " | ");
}

TEST_CASE("a declaration gives a variable its type, allowed values, default and description") {
  auto spec = Declared("rdma_stack:\n  default: inbox\n  allowed: [inbox, mlnx_ofed, doca_ofed]\n"
                       "  description: which RDMA stack\n");
  REQUIRE(spec);
  CHECK(spec->type == VariableSpec::Type::kString);
  CHECK(spec->description == "which RDMA stack");
  CHECK(Problems(*spec, "mlnx_ofed").empty());
  CHECK(Problems(*spec, "mlnx-ofed") ==
        "rdma_stack is mlnx-ofed, not one of: inbox, mlnx_ofed, doca_ofed (did you mean 'mlnx_ofed'?)");
  CHECK(Problems(*spec, 3) ==
        "rdma_stack must be a string, not an integer (3): YAML reads an unquoted number as a number; quote it: \"3\"");
  CHECK(Problems(*spec, 23.1) ==
        "rdma_stack must be a string, not a number (23.1): YAML reads an unquoted number as a number, dropping trailing "
        "zeros (23.10 is 23.1); quote it: \"23.10\"");
  CHECK(Problems(*spec, true) ==
        "rdma_stack must be a string, not true or false (true): YAML reads unquoted yes/no/true/false as true or false; "
        "quote it");
  CHECK(Problems(*spec, nullptr) == "rdma_stack must be a string, not nothing (null)");
}

TEST_CASE("integers, numbers and their bounds") {
  auto integer = Declared("n:\n  default: 1024\n  minimum: 1\n  description: d\n");
  REQUIRE(integer);
  CHECK(Problems(*integer, 2048).empty());
  CHECK(Problems(*integer, 1.5) == "n must be an integer, not a number (1.5)");
  CHECK(Problems(*integer, "lots") == "n must be an integer, not a string (lots)");
  CHECK(Problems(*integer, 0) == "n is 0, below its minimum 1");
  auto number = Declared("x:\n  default: null\n  type: number\n  maximum: 10\n  description: d\n");
  REQUIRE(number);
  CHECK(Problems(*number, 3).empty());  // an integer is a number
  CHECK(Problems(*number, 2.5).empty());
  CHECK(Problems(*number, nullptr).empty());  // a null default: null means unset
  CHECK(Problems(*number, 11) == "x is 11, above its maximum 10");
}

TEST_CASE("lists of maps: items, fields, unknown and missing keys") {
  auto spec = Declared(
      "slurm_partitions:\n  default: []\n  items:\n    type: map\n    fields:\n"
      "      name: {type: string, required: true, description: the name}\n"
      "      group: {type: string, description: whose hosts}\n"
      "      default: {type: boolean, description: the default partition}\n"
      "  description: partitions\n");
  REQUIRE(spec);
  CHECK(Problems(*spec, json::parse(R"([{"name": "gpu", "group": "compute"}])")).empty());
  CHECK(Problems(*spec, json::parse(R"([{"name": "gpu"}, {"name": "b", "nodes": "x"}])")) ==
        "slurm_partitions[1]: unknown key 'nodes'; known: name, group, default");
  CHECK(Problems(*spec, json::parse(R"([{"nam": "gpu"}])")) ==
        "slurm_partitions[0]: unknown key 'nam' (did you mean 'name'?); known: name, group, default | "
        "slurm_partitions[0]: missing 'name'");
  CHECK(Problems(*spec, json::parse(R"([{"name": 1}])")) == "slurm_partitions[0].name must be a string, not an integer (1): YAML reads an unquoted number as a number; "
        "quote it: \"1\"");
  CHECK(Problems(*spec, "batch") == "slurm_partitions must be a list, not a string (batch)");
}

TEST_CASE("syntaxes and files beside the inventory") {
  auto listen = Declared("l:\n  default: null\n  type: string\n  syntax: address:port\n  description: d\n");
  REQUIRE(listen);
  CHECK(Problems(*listen, "10.0.0.1:9090").empty());
  CHECK(Problems(*listen, "10.0.0.1").find("l (10.0.0.1) is not ADDRESS:PORT") == 0);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "variable_spec_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "bundle.tgz") << "x";
  auto bundle = Declared("b:\n  default: \"\"\n  file: true\n  description: d\n");
  REQUIRE(bundle);
  CHECK(Problems(*bundle, "bundle.tgz", dir.string()).empty());
  CHECK(Problems(*bundle, "", dir.string()).empty());  // empty: no file
  CHECK(Problems(*bundle, "missing.tgz", dir.string()) ==
        "b names 'missing.tgz', which is not a readable file beside the inventory (in " + dir.string() + ")");
  CHECK(Problems(*bundle, "/etc/passwd", dir.string()).find("b: ") == 0);  // outside the inventory's directory
  std::filesystem::remove_all(dir);
}

TEST_CASE("a declaration with a problem is refused where it is written") {
  std::string errors;
  CHECK_FALSE(Declared("a:\n  default: 1\n", &errors));
  CHECK(errors.find("variable 'a' needs a one-line description") != std::string::npos);
  CHECK_FALSE(Declared("a:\n  default: null\n  description: d\n", &errors));
  CHECK(errors.find("variable 'a' needs a type (its default gives none)") != std::string::npos);
  CHECK_FALSE(Declared("a:\n  description: d\n  type: string\n", &errors));
  CHECK(errors.find("variable 'a' needs a default") != std::string::npos);
  CHECK_FALSE(Declared("a:\n  default: x\n  allowed: [y, z]\n  description: d\n", &errors));
  CHECK(errors.find("r.yaml:2:12: error: variable 'a': the default is x, not one of: y, z") != std::string::npos);
  CHECK_FALSE(Declared("a:\n  default: 1\n  tpye: integer\n  description: d\n", &errors));
  CHECK(errors.find("unknown key 'tpye' in variable 'a'") != std::string::npos);
  CHECK_FALSE(Declared("a:\n  default: 1\n  type: int\n  description: d\n", &errors));
  CHECK(errors.find("variable 'a' type must be one of string, integer, number, boolean, list, map, scalar, got 'int'") !=
        std::string::npos);
  CHECK_FALSE(Declared("a: 5\n", &errors));
  CHECK(errors.find("expected a declaration") != std::string::npos);
}

TEST_CASE("format 1 and 2 declarations are inferred from the default") {
  VariableSpec spec = InferVariableSpec("n", 4);
  CHECK(spec.inferred);
  CHECK(Problems(spec, 8).empty());
  CHECK(Problems(spec, "x") == "n must be an integer, not a string (x)");
  CHECK(Problems(InferVariableSpec("any", nullptr), "x").empty());
}

}  // namespace
}  // namespace clusterctl
