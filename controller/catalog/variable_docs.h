// Declarations as text people read: the type line, the default, and the
// variable tables of docs/roles.md (generated: `clusterctl __generate
// variables`; a unit test fails when the file drifts from the role files).
#pragma once

#include <string>
#include <vector>

#include "controller/catalog/role.h"
#include "controller/catalog/variable_spec.h"

namespace clusterctl {

// "integer, at least 1", "one of inbox, mlnx_ofed, doca_ofed", "list of
// string (address)", "string (a file beside the inventory)".
std::string DescribeType(const VariableSpec& spec);

// The default as the inventory would write it; "" for none (a field).
std::string DescribeDefault(const VariableSpec& spec);

// One row per variable and per field of its items or map
// (`slurm_partitions[].group`): name, type, default, description.
struct VariableRow {
  std::string name, type, default_value, description;
};
std::vector<VariableRow> VariableRows(const VariableSpec& spec);

// The Markdown between docs/roles.md's variable markers: a table for each
// role that declares variables (its own, not those `from:` another role),
// then validate's.
std::string VariablesMarkdown(const Catalog& catalog);

}  // namespace clusterctl
