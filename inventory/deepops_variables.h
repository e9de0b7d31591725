// DeepOps's variables that `inventory import` converts to clusterctl's, and
// those it deliberately leaves out although clusterctl has a variable of the
// same name (the meaning differs). A variable in neither this table nor the
// role catalog is not imported (the import notes it): clusterctl refuses
// inventory variables no role declares.
#pragma once

#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace clusterctl {

struct DeepOpsVariable {
  std::string_view name;        // DeepOps's variable
  std::string_view clusterctl;  // clusterctl's variable with the same meaning; empty: not imported
  std::string_view note;        // converted: how; not imported: why
  // The value in clusterctl's terms; nullopt when it has no equivalent
  // (then the variable is noted as not imported). nullptr: the value as is.
  std::optional<nlohmann::json> (*convert)(const nlohmann::json& value);
};

// The table entry for a DeepOps variable name, or nullptr.
const DeepOpsVariable* FindDeepOpsVariable(std::string_view name);

}  // namespace clusterctl
