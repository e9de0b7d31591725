// The per-node verdicts of a validation run (see validator.h): every node
// check spec (check_spec.h) the selection needs, judged on every selected
// node that answered, in report order so prerequisites come first. A node
// check judged by a later phase (jobs, NFS, IPoIB) gets its skip here where
// its requirements do not hold, so every selected node has a result for it.
#include <algorithm>
#include <string_view>

#include "controller/validate/validator.h"

namespace clusterctl::validation_internal {

void Validator::NodeVerdicts() {
  for (const Host* host : in_.selected) {
    const NodeProbe& p = probes_.at(host->name);
    if (!p.reached) {
      UnreachableVerdicts(host->name, p);
      continue;
    }
    const NodeView view = ViewOf(*host);
    std::map<std::string, CheckResult> verdicts;  // every one judged, reported or not
    for (const CheckSpec* spec : CheckSpecs()) {
      if (spec->scope != kNode || !Needed(spec->name)) continue;
      if (spec->verdict == nullptr) {  // judged by a later phase where it applies; a skip where it does not
        if (std::string unmet = UnmetRequirement(*spec, view); !unmet.empty()) Add(Skip(spec->name, kNode, host->name, unmet));
        continue;
      }
      CheckResult result = JudgeNodeCheck(*spec, view, verdicts);
      Add(result);
      node_outcomes_[host->name][spec->name] = result.outcome;
      verdicts.emplace(spec->name, std::move(result));
    }
    NoteUsability(*host, verdicts);
  }
}

// Jobs run on compute nodes whose slurm.node passed and whose munge.decode
// did not fail, GPU jobs where gpu.count passed too (ClusterRun::NodeCheckPassed).
void Validator::NoteUsability(const Host& host, const std::map<std::string, CheckResult>& verdicts) {
  auto outcome = [&](const char* check) {
    auto it = verdicts.find(check);
    return it == verdicts.end() ? std::optional<CheckOutcome>() : it->second.outcome;
  };
  std::optional<CheckOutcome> node = outcome("slurm.node");
  if (!node || *node == CheckOutcome::kSkip) return;
  if (*node != CheckOutcome::kPass) not_usable_[host.name] = "slurm.node failed";
  else if (outcome("munge.decode") == CheckOutcome::kFail) not_usable_[host.name] = "munge.decode failed";
  else usable_compute_.insert(host.name);
}

// No reading, no pass (docs/validation.md): a selected host that could not
// be reached fails every node check selected for it, whether or not it
// would apply (its facts are unknown too), so a run over dead nodes can
// never exit 0. The cluster checks, the pairs and the out-of-band checks
// (its BMC answers without its SSH) answer for themselves.
void Validator::UnreachableVerdicts(const std::string& name, const NodeProbe& p) {
  std::string why = "not checked: " + name + " is unreachable (" + (p.unreachable.empty() ? "no answer" : p.unreachable) + ")";
  for (const CheckSpec* spec : CheckSpecs()) {
    if (spec->scope != kNode || spec->name == "reachable" || spec->out_of_band) continue;
    Add(Fail(spec->name, kNode, name, why, {}, "unknown"));
  }
}

}  // namespace clusterctl::validation_internal
