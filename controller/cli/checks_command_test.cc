#include "controller/cli/checks_command.h"

#include <doctest/doctest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "controller/validate/catalogue.h"
#include "controller/validate/verdicts.h"

namespace clusterctl {

TEST_CASE("checks lists the validation catalogue itself, as a table or as JSON") {
  std::ostringstream table;
  CHECK(PrintCheckCatalogue(false, table) == 0);
  std::ostringstream json;
  CHECK(PrintCheckCatalogue(true, json) == 0);
  const nlohmann::json document = nlohmann::json::parse(json.str());
  REQUIRE(document["checks"].size() == CheckCatalogue().size());
  for (size_t i = 0; i < CheckCatalogue().size(); ++i) {
    const CheckInfo& info = CheckCatalogue()[i];
    CAPTURE(info.name);
    CHECK(document["checks"][i]["name"] == info.name);
    CHECK(document["checks"][i]["scope"] == ToString(info.scope));
    CHECK(document["checks"][i]["summary"] == info.summary);
    CHECK(table.str().find(info.name) != std::string::npos);
  }
  CHECK(table.str().rfind("CHECK", 0) == 0);
}

}  // namespace clusterctl
