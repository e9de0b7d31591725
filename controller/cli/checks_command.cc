#include "controller/cli/checks_command.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "common/json_text.h"
#include "controller/cli/exit_codes.h"
#include "controller/output/table.h"
#include "controller/validate/catalogue.h"
#include "controller/validate/verdicts.h"

namespace clusterctl {

int PrintCheckCatalogue(bool json, std::ostream& out) {
  if (json) {
    nlohmann::json checks = nlohmann::json::array();
    for (const CheckInfo& c : CheckCatalogue()) {
      checks.push_back({{"name", c.name}, {"scope", ToString(c.scope)}, {"summary", c.summary}});
    }
    out << JsonText(nlohmann::json{{"checks", checks}}, 2) << "\n";
    return kExitOk;
  }
  TextTable table({"CHECK", "SCOPE", "WHAT IT ASSERTS"});
  for (const CheckInfo& c : CheckCatalogue()) table.AddRow({c.name, ToString(c.scope), c.summary});
  table.Print(out);
  return kExitOk;
}

void AddChecksCommand(CLI::App& app, CommandValues& v) {
  CLI::App* checks = app.add_subcommand("checks", "the validation checks: name, scope and what each asserts");
  checks->add_flag("--json", v.options.json, "one JSON document");
  checks->callback([&v] { v.exit_code = PrintCheckCatalogue(v.options.json, *v.services.out); });
}

}  // namespace clusterctl
