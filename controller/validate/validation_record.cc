#include "controller/validate/validation_record.h"

namespace clusterctl {

StoredValidation ToStoredValidation(const CheckResult& r) {
  StoredValidation v;
  v.check = r.check;
  v.scope = r.scope;
  v.subject = r.subject;
  v.result = r.outcome;
  v.measured = r.measured;
  v.threshold = r.threshold;
  v.detail = r.detail;
  v.evidence = r.evidence;
  return v;
}

CheckResult FromStoredValidation(const StoredValidation& v) {
  CheckResult r;
  r.check = v.check;
  r.scope = v.scope;
  r.subject = v.subject;
  r.outcome = v.result;
  r.measured = v.measured;
  r.threshold = v.threshold;
  r.detail = v.detail;
  r.evidence = v.evidence;
  return r;
}

std::map<std::string, int> CountOutcomes(const std::vector<CheckResult>& results) {
  std::map<std::string, int> counts = {{"pass", 0}, {"fail", 0}, {"skip", 0}};
  for (const CheckResult& r : results) ++counts[ToString(r.outcome)];
  return counts;
}

Status RecordValidation(StateStore& state, int64_t run_id, const ValidationOutcome& outcome) {
  std::vector<StoredValidation> stored;
  for (const CheckResult& r : outcome.results) stored.push_back(ToStoredValidation(r));
  Status saved = state.SaveValidations(run_id, stored);
  Status facts = state.SaveFacts(run_id, outcome.facts);
  return saved.ok() ? facts : saved;
}

}  // namespace clusterctl
