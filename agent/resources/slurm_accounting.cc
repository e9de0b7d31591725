// slurm_accounting: Slurm's QoS, accounts, users and their associations as
// the inventory names them, through sacctmgr on a host slurmdbd answers on.
// Check reads them (four read-only sacctmgr queries) and lists each
// difference; apply runs only the sacctmgr commands those need
// (slurm_accounting_model.h: the difference, the pure part).
#include "agent/resources/registry.h"
#include "agent/resources/slurm_accounting_model.h"
#include "common/strings.h"

namespace clusterctl::agent {
namespace {

namespace sa = slurm_accounting;

// What sacctmgr shows now; an error naming the query that failed.
Result<sa::Current> ReadCurrent(ResourceHost& host, const std::string& cluster) {
  std::vector<std::string> outputs;
  for (const std::vector<std::string>& argv : sa::CurrentQueries(cluster)) {
    CommandSpec query;
    query.argv = argv;
    query.timeout = std::chrono::seconds(60);
    CommandResult r = host.Run(query, false);
    if (r.exit_code != 0) {
      const std::string said = Printable(Trim(r.stderr_data.empty() ? r.stdout_data : r.stderr_data), 300);
      // argv: sacctmgr --parsable2 --noheader show OBJECT ...
      return Status::Unavailable("sacctmgr show " + argv[4] + " " + CommandFailureReason(query, r) + ": " + said);
    }
    outputs.push_back(r.stdout_data);
  }
  return sa::ParseCurrent(outputs);
}

ResourceOutcome SlurmAccountingResource(const ResourceRequest& request, ResourceHost& host) {
  ResourceOutcome outcome;
  Result<sa::Desired> desired = sa::ParseDesired(request.params);
  if (!desired.ok()) return outcome.Fail("slurm_accounting: " + desired.status().message());
  if (desired->qos.empty() && desired->accounts.empty() && desired->users.empty() && !desired->prune) return outcome;
  Result<sa::Current> current = ReadCurrent(host, desired->cluster);
  if (!current.ok()) {
    // Before the first deploy sacctmgr is not installed or slurmdbd not yet
    // running: plan shows everything as to be added; apply needs it.
    if (request.apply || current.status().code() != Status::Code::kUnavailable) {
      return outcome.Fail(current.status().message());
    }
    outcome.Differs("accounting not readable yet (" + current.status().message() + "): everything counted as missing");
    current = sa::Current{};
  }
  const std::vector<sa::Change> changes = sa::Difference(*desired, *current);
  for (const sa::Change& change : changes) outcome.Differs(change.what);
  if (!request.apply) return outcome;
  for (const sa::Change& change : changes) {
    if (!RunOrFail(host, outcome, change.argv, true, "", std::chrono::minutes(2))) return outcome;
  }
  return outcome;
}

using resources::P;
using T = resources::ParamType;

const ResourceKindRegistration kSlurmAccountingKind({"slurm_accounting",
                                                     "Slurm QoS, accounts, users and associations through sacctmgr: "
                                                     "only the differences, nothing unnamed deleted unless prune",
                                                     {P("cluster", T::kString, true), P("qos", T::kMapList),
                                                      P("accounts", T::kMapList), P("users", T::kMapList),
                                                      P("prune", T::kBool)},
                                                     {}},
                                                    SlurmAccountingResource);

}  // namespace
}  // namespace clusterctl::agent
