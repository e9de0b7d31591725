// repository: the controller sends the signing key (inline or a file in the
// inventory's directory) as the step's body, and names the apt source format
// of the host's release (platforms.yaml `apt_sources`) when it is not the
// one-line default and the step does not name one.
#include "controller/catalog/role.h"
#include "controller/engine/kinds/step_kind.h"

namespace clusterctl {
namespace {

// The host's release's apt source format; "one-line" without facts or an entry.
std::string ReleaseSourceFormat(const KindPlanning& planning) {
  if (!planning.inputs.facts || !planning.inputs.catalog) return "one-line";
  auto facts = planning.inputs.facts->find(planning.host.name);
  if (facts == planning.inputs.facts->end() || !facts->second.is_object()) return "one-line";
  const Release* release = planning.inputs.catalog->platforms().Find(facts->second.value("os", nlohmann::json()));
  return release ? release->apt_sources : "one-line";
}

class RepositoryKind final : public StepKind {
 public:
  void Plan(KindPlanning& planning, nlohmann::json& params, PlannedStep& planned) const override {
    if (params.contains("key")) {
      planned.body = params["key"].get<std::string>();
    } else if (params.contains("key_file")) {
      planned.body = planning.ReadInventoryFile("key_file", params, "repository key file").value_or("");
    }
    if (!params.contains("format")) {
      const std::string format = ReleaseSourceFormat(planning);
      if (format != "one-line") params["format"] = format;
    }
  }
  bool ChangesPackageSources(const PlannedStep& /*step*/) const override { return true; }
  bool JoinsUpFrontAsSource() const override { return true; }
};

const StepKindRegistration kRepository("repository", std::make_unique<RepositoryKind>());

}  // namespace
}  // namespace clusterctl
