// Judging one check spec the way the node itself would (check_spec.h): a
// NodeView of the node's facts and probe outputs, the thresholds and the
// validate variables at their defaults, and no reading of the controller.
#pragma once

#include <string>

#include <doctest/doctest.h>

#include "controller/catalog/validate_variables.h"
#include "controller/validate/check_spec.h"

namespace clusterctl::testing {

struct SpecBench {
  NodeReadings node = NodeReadings::FromFacts("node01", nlohmann::json::object());
  Thresholds thresholds;
  nlohmann::json vars = nlohmann::json::object();  // the inventory's; defaults added by Judge
  NodeRole role;  // the node's place in the cluster (none: no Slurm cluster)

  // `check`'s verdict on the node; a requirement it misses, as the skip.
  CheckResult Judge(const std::string& check) const {
    const CheckSpec* spec = FindCheckSpec(check);
    REQUIRE_MESSAGE(spec != nullptr, "no check spec " << check);
    const bool judged_per_node = spec->verdict != nullptr;
    REQUIRE_MESSAGE(judged_per_node, check << " has no node verdict");
    const nlohmann::json resolved = WithValidateDefaults(vars);
    NodeView view{node, thresholds, resolved, role, nullptr, nullptr};
    if (std::string unmet = UnmetRequirement(*spec, view); !unmet.empty()) {
      return Skip(check, spec->scope, node.host, unmet);
    }
    return spec->verdict(view);
  }

  // The argv the probe `id` runs on this node.
  Argv Command(const std::string& check, const std::string& id) const {
    const nlohmann::json resolved = WithValidateDefaults(vars);
    NodeView view{node, thresholds, resolved, role, nullptr, nullptr};
    for (const ProbeSpec* probe : FindCheckSpec(check)->probes) {
      if (probe->id == id) return probe->CommandsFor(view).front();
    }
    FAIL("no probe " << id << " in " << check);
    return {};
  }

  void Reads(const std::string& probe, const std::string& out, int exit_code = 0, const std::string& err = "") {
    ToolOutput output;
    output.out = out;
    output.err = err;
    output.exit_code = exit_code;
    node.outputs[probe] = output;
    node.ClearParsed();
  }
};

}  // namespace clusterctl::testing
