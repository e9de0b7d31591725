// repository: the controller sends the signing key (inline or a file in the
// inventory's directory) as the step's body.
#include "controller/engine/kinds/step_kind.h"

namespace clusterctl {
namespace {

class RepositoryKind final : public StepKind {
 public:
  void Plan(KindPlanning& planning, nlohmann::json& params, PlannedStep& planned) const override {
    if (params.contains("key")) {
      planned.body = params["key"].get<std::string>();
    } else if (params.contains("key_file")) {
      planned.body = planning.ReadInventoryFile("key_file", params, "repository key file").value_or("");
    }
  }
  bool ChangesPackageSources(const PlannedStep& /*step*/) const override { return true; }
  bool JoinsUpFrontAsSource() const override { return true; }
};

const StepKindRegistration kRepository("repository", std::make_unique<RepositoryKind>());

}  // namespace
}  // namespace clusterctl
