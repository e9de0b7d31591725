// ib.write_bw: judged by validation_run's pair phase (job_checks.cc, Pairs)
// between nodes whose ib.ports passed and that have perftest.
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {

namespace {

const CheckRegistration kIbWriteBw({.name = "ib.write_bw",
                                    .scope = CheckScope::kPair,
                                    .summary = "ib_write_bw between ring neighbours above the floor",
                                    .rank = 210,
                                    .prerequisites = {{"ib.ports"}},
                                    .probes = {&IbWriteBwProbe()}});

}  // namespace
}  // namespace clusterctl::checks
