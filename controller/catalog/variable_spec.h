// Variable declarations: what a role (or validate) says about a variable it
// reads, and checking a value against it (docs/roles.md, "Variables").
//
// A role file of format 3 declares each variable under `vars:`:
//
//   rdma_stack:
//     default: inbox
//     allowed: [inbox, mlnx_ofed, doca_ofed]
//     description: which RDMA stack is installed
//
// with `type` (string, integer, number, boolean, list, map, or scalar: any
// one of the first four; taken from a
// non-null default, required with a null one), `allowed`, `syntax` (a value
// syntax, value_syntax.h), `minimum`/`maximum` (numbers), `file: true` (a
// file beside the inventory that must exist, and may not be a connection
// key, under the state directory, or a private key: inventory/sensitive_file.h),
// `private_key: true` (with file: a private key is what it takes; its steps
// land it 0600 or 0400), `secret: true` (the value is a credential, a
// webhook URL with its token: masked wherever the run's text goes), `items` (a list's items: a
// declaration without default) and `fields` (a map's keys, each a
// declaration with optional `required: true`). `from: ROLE` instead says the
// variable is declared by ROLE (same type, default and description).
// Formats 1 and 2 wrote only defaults: their declarations are inferred
// (type from the default, no description).
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/diagnostics.h"
#include "common/yaml_fields.h"
#include "controller/catalog/value_syntax.h"

namespace clusterctl {

struct VariableSpec {
  enum class Type { kAny, kString, kInteger, kNumber, kBoolean, kList, kMap, kScalar };

  std::string name;  // the variable's, or the field's name
  Type type = Type::kAny;
  nlohmann::json default_value;  // null: unset unless the inventory sets it (then null is allowed)
  bool has_default = false;      // fields may have none
  std::vector<nlohmann::json> allowed;  // empty: any value of the type
  const ValueSyntax* syntax = nullptr;
  std::optional<double> minimum, maximum;
  bool file = false;      // a file beside the inventory, sent to nodes: must exist
  bool private_key = false;  // with file: the file is a private key (a TLS key), sent 0600/0400
  bool secret = false;       // the value is a credential: masked in every output
  bool required = false;  // a field that must be present
  std::string description;
  std::shared_ptr<const VariableSpec> items;  // kList: what each item must be
  std::vector<VariableSpec> fields;           // kMap (or a list's map items): the keys; empty: any
  // Declared by a role of format 1 or 2 (only a default): weaker than a
  // declaration, never in conflict with one.
  bool inferred = false;
  std::string declared_by;  // the role, or "validate"
  SourceLocation where;

  const VariableSpec* Field(const std::string& field_name) const;
};

const char* TypeName(VariableSpec::Type type);  // "string", "integer", ...

// The declaration of a format-1/2 role variable from its default alone.
VariableSpec InferVariableSpec(const std::string& name, const nlohmann::json& default_value);

// Parses one declaration (a map) of format 3. `is_field`: a field of a map
// or a list's items (no default required). Problems are reported located.
std::optional<VariableSpec> ParseVariableSpec(const std::string& name, const YamlNode& node, bool is_field,
                                              YamlFields& fields);

// What checking a value needs besides the value: where files are looked for.
struct ValueCheckContext {
  std::string inventory_dir;  // files named by `file: true` variables resolve here
  // A step sends the file to nodes and its parameter check already refuses
  // a path outside inventory_dir, naming the step (variable_check.cc): the
  // declaration then checks only that the file exists, so the same path is
  // not refused twice.
  bool containment_checked_by_step = false;
  // The inventory's connection keys, resolved: never a file to send.
  std::set<std::string> connection_keys;
};

// The string values in `value` that `spec` (or a field or item of it)
// declares secret: true.
void CollectSecretValues(const VariableSpec& spec, const nlohmann::json& value, std::vector<std::string>& out);

// Every way a declaration's own non-null default fails it (a file it names
// is not looked for: defaults are checked where the role is loaded).
std::vector<std::string> DefaultProblems(const VariableSpec& spec, const std::string& path);

// Every way `value` fails `spec`, each one sentence starting with the path
// ("slurm_partitions[1]: unknown key 'nodes' (did you mean 'group'?)").
std::vector<std::string> CheckVariableValue(const VariableSpec& spec, const nlohmann::json& value,
                                            const std::string& path, const ValueCheckContext& context);

}  // namespace clusterctl
