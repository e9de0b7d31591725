// reachable: judged by the probe phase (validation_run.cc): SSH and the agent answered.
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

const CheckRegistration kReachable({.name = "reachable", .scope = kNode, .summary = "the agent answers over SSH", .rank = 10});

}  // namespace
}  // namespace clusterctl::checks
