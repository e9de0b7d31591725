// assert: a precondition. Checked whenever its host is contacted, even when
// recorded as holding (what it guards may change in this run, and the node
// may have changed since it last held); plan cannot check one after an
// earlier change of its role (or a reboot) that plan does not make, and
// reports it as checked after that.
#include "controller/engine/kinds/step_kind.h"

namespace clusterctl {
namespace {

class AssertKind final : public StepKind {
 public:
  bool IsPrecondition() const override { return true; }
};

const StepKindRegistration kAssert("assert", std::make_unique<AssertKind>());

}  // namespace
}  // namespace clusterctl
