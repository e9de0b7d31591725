// munge.decode's verdict over the controller's reading (SlurmReading): a
// decode that did not happen is no reading, never a pass.
#include <doctest/doctest.h>

#include "controller/validate/checks/spec_test_util.h"

namespace clusterctl {
namespace {

ToolOutput Ran(int exit_code, const std::string& out = "") {
  ToolOutput output;
  output.exit_code = exit_code;
  output.out = out;
  return output;
}

struct MungeBench {
  testing::SpecBench bench;
  SlurmReading slurm;
  NodeRole role;

  MungeBench() {
    bench.Reads("munge -n", "MUNGE:AwQFAAB...:\n");
    slurm.controller = "head";
    slurm.controller_reached = true;
    slurm.controller_credential = "MUNGE:head:\n";
    role.slurm_cluster = role.slurm_host = true;
  }
  CheckResult Judge() const {
    const nlohmann::json vars = nlohmann::json::object();
    NodeView view{bench.node, vars, role, &slurm, nullptr};
    return FindCheckSpec("munge.decode")->verdict(view);
  }
};

TEST_CASE("munge.decode: both ways decoded passes; a way not decoded is no reading") {
  MungeBench m;
  m.slurm.decoded_on_controller["node01"] = Ran(0);
  m.slurm.controller_decoded_here["node01"] = Ran(0);
  CHECK(m.Judge().outcome == CheckOutcome::kPass);

  m.slurm.decoded_on_controller["node01"].started = false;  // the controller's session ended first
  CheckResult r = m.Judge();
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.measured == "unknown");
  CHECK(r.detail == "not checked: node01's credential was not decoded on head");

  m.slurm.decoded_on_controller["node01"] = Ran(0);
  m.slurm.controller_decoded_here.erase("node01");  // never tried here
  CHECK(m.Judge().detail == "not checked: head's credential was not decoded on node01");
  m.slurm.controller_credential.clear();
  CHECK(m.Judge().detail == "not checked: head made no credential to decode here (munge -n failed there)");

  m.slurm.controller_decoded_here["node01"] = Ran(1, "unmunge: Error: Invalid credential");
  m.slurm.controller_credential = "MUNGE:head:\n";
  r = m.Judge();
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.detail.find("a credential made on head does not decode on node01") != std::string::npos);
}

TEST_CASE("munge.decode on the controller: other nodes that decoded nothing are no reading") {
  MungeBench m;
  m.bench.node.host = "head";
  m.role.controller = true;
  m.slurm.other_hosts = 2;
  m.slurm.tried_elsewhere = 2;
  m.slurm.decoded_elsewhere = 1;
  CHECK(m.Judge().outcome == CheckOutcome::kPass);
  m.slurm.decoded_elsewhere = 0;
  CHECK(m.Judge().detail.find("munge.key differs from all of them") != std::string::npos);
  m.slurm.tried_elsewhere = 0;  // both their sessions ended before unmunge
  CheckResult r = m.Judge();
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.measured == "unknown");
  m.slurm.other_hosts = 0;  // a one-node cluster: munge -n working is the reading
  CHECK(m.Judge().outcome == CheckOutcome::kPass);
}

}  // namespace
}  // namespace clusterctl
