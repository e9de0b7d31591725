// gpu.soak: all_reduce_perf in a loop, nvidia-smi -q -d PERFORMANCE sampled
// and the kernel log read over the window, judged on real captures
// (tests/fixtures/captured/SOURCES.md): a clean `-q -d PERFORMANCE` (driver
// 495.44, MangoHud#636); an 8xH100 HGX `-q` whose Clocks Event Reasons show
// HW Slowdown and HW Power Brake active on all eight GPUs (the section
// `-d PERFORMANCE` prints, in the same layout); real NVRM Xid lines.
#include <doctest/doctest.h>

#include "controller/validate/checks/gpu_jobs.h"
#include "controller/validate/checks/spec_test_util.h"
#include "tests/unit/fixture.h"

namespace clusterctl {
namespace {

ToolOutput Printed(const std::string& out, int exit_code = 0) {
  ToolOutput o;
  o.out = out;
  o.exit_code = exit_code;
  return o;
}

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
bool Runs(const HostCommand& c, const std::string& program, const std::string& arg = "") {
  return c.argv.at(0) == program && (arg.empty() || std::find(c.argv.begin(), c.argv.end(), arg) != c.argv.end());
}

// Two GPU nodes whose loads run the whole soak; gpu01's samples are clean,
// gpu02's whatever `sample` says; the kernel log's window is `window` (by node).
struct SoakBench : testing::FakeClusterRun {
  std::string clean = testing::CapturedFixture("nvidia-smi-q-d-PERFORMANCE--1GPU-495.44--idle--1.txt");
  std::map<std::string, ToolOutput> sample, window, state;
  SoakBench() {
    nlohmann::json gpu_facts = {{"pci", {{"gpu_count", 8}}}};
    for (const char* node : {"gpu01", "gpu02"}) {
      Node(node, gpu_facts).outputs[checks::NcclTestsProbe().id] = ToolOutput{};
      node_outcomes[node]["gpu.driver"] = CheckOutcome::kPass;
      probed.push_back({node, true, true, ""});
      sample[node] = Printed(clean);
      window[node] = Printed("", 1);  // journalctl --grep: nothing matched
      state[node] = Printed("active\n");
      vars[node] = {{"validate_acceptance_seconds", 30}};
    }
    answer = [this](const HostCommand& c) {
      if (Runs(c, "journalctl", "--show-cursor")) {
        return Printed("2026-11-29T20:00:00.000000+0000 " + c.host + " kernel: eth0: link up\n-- cursor: s=ab;i=1f0\n");
      }
      if (Runs(c, "journalctl", "--after-cursor")) return window[c.host];
      if (Runs(c, "nvidia-smi")) return sample[c.host];
      if (Runs(c, "systemctl", "is-active")) return state[c.host];
      if (Runs(c, "journalctl", "-u")) return Printed("# nccl-tests version 2.13.8\nNCCL error: unhandled cuda error\n");
      return Printed("");
    };
  }
};

TEST_CASE("gpu.soak: the load in a transient unit, three samples over 30 s, the window read after the cursor: clean nodes pass") {
  SoakBench run;
  run.Phase("gpu.soak");
  CHECK_MESSAGE(run.Of("gpu01").outcome == CheckOutcome::kPass, run.Of("gpu01").detail);
  CHECK(run.Of("gpu01").measured == "3 samples");
  CHECK(run.Of("gpu02").outcome == CheckOutcome::kPass);
  const HostCommand& load = run.ran.at(1);
  REQUIRE(load.argv.size() == 14);
  CHECK(load.argv.at(0) == "systemd-run");
  CHECK(load.argv.at(4) == "RuntimeMaxSec=180");
  CHECK(Argv(load.argv.begin() + 5, load.argv.end()) ==
        Argv{"/usr/local/bin/all_reduce_perf", "-b", "1G", "-e", "1G", "-g", "8", "-N", "0"});
  CHECK(std::count_if(run.ran.begin(), run.ran.end(), [](const HostCommand& c) { return Runs(c, "nvidia-smi"); }) == 6);
  const auto read = std::find_if(run.ran.begin(), run.ran.end(), [](const HostCommand& c) { return Runs(c, "journalctl", "--after-cursor"); });
  REQUIRE(read != run.ran.end());
  CHECK(read->argv == Argv{"journalctl", "-q", "-k", "-o", "short-precise", "--no-pager", "--after-cursor", "s=ab;i=1f0", "--grep", "NVRM"});
  CHECK(std::count_if(run.ran.begin(), run.ran.end(), [](const HostCommand& c) { return Runs(c, "systemctl", "stop"); }) == 2);
  CHECK(run.progress.front() == "gpu.soak: all_reduce_perf for 30 s on 2 nodes, nvidia-smi every 10 s");
}

TEST_CASE("gpu.soak: the real HGX H100 sample with the power brake asserted fails that node, naming each GPU and reason") {
  SoakBench run;
  run.sample["gpu02"] = Printed(testing::CapturedFixture("nvidia-smi-q--8xH100-SXM5-80GB--1.txt"));
  run.Phase("gpu.soak");
  CHECK(run.Of("gpu01").outcome == CheckOutcome::kPass);
  const CheckResult& r = run.Of("gpu02");
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(Has(r.detail, "GPU 00000000:19:00.0: HW Slowdown, HW Power Brake Slowdown active in 3 of 3 samples"));
  CHECK(std::count(r.detail.begin(), r.detail.end(), ';') == 7);  // eight GPUs named
  REQUIRE_FALSE(r.evidence.empty());
  CHECK(Has(r.evidence.front(), "GPU 00000000:19:00.0: HW Slowdown"));
}

TEST_CASE("gpu.soak: an Xid in the window fails the node whatever validate_gpu_xid_ignore says, naming the cause") {
  SoakBench run;
  run.vars["gpu02"]["validate_gpu_xid_ignore"] = {45};
  run.window["gpu02"] = Printed(testing::CapturedFixture("kernel-log-NVRM--590.48.01--xid45-caused-by-previous-xid-149-145--1.txt"));
  run.Phase("gpu.soak");
  CHECK(run.Of("gpu01").outcome == CheckOutcome::kPass);
  const CheckResult& r = run.Of("gpu02");
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(Has(r.detail, "the NVIDIA driver logged Xid 45 x7"));
  CHECK(Has(r.detail, "during the soak"));
}

TEST_CASE("gpu.soak: no reading, no pass: the load stopped early, a SIMULATED nvidia-smi, no kernel log, the deadline") {
  SoakBench stopped;
  stopped.state["gpu02"] = Printed("failed\n", 3);
  stopped.Phase("gpu.soak");
  CHECK(stopped.Of("gpu02").outcome == CheckOutcome::kFail);
  CHECK(stopped.Of("gpu02").detail == "no reading: the load (all_reduce_perf) stopped before the soak's end (its unit is failed)");
  CHECK(Has(stopped.Of("gpu02").evidence.back(), "NCCL error: unhandled cuda error"));

  SoakBench simulated;
  simulated.sample["gpu01"] = Printed("", 1);
  simulated.sample["gpu01"].err = "SIMULATED nvidia-smi (clusterctl testbed): there is no GPU and no driver here";
  simulated.Phase("gpu.soak");
  CHECK(simulated.Of("gpu01").detail == "no reading: nvidia-smi on gpu01 is SIMULATED (the testbed's placeholder)");

  SoakBench no_log;
  const auto answer = no_log.answer;
  no_log.answer = [answer](const HostCommand& c) { return Runs(c, "journalctl", "--show-cursor") ? Printed("") : answer(c); };
  no_log.Phase("gpu.soak");
  CHECK(Has(no_log.Of("gpu01").detail, "no reading: the kernel log is empty or unreadable on gpu01"));
  CHECK(std::none_of(no_log.ran.begin(), no_log.ran.end(), [](const HostCommand& c) { return Runs(c, "journalctl", "--after-cursor"); }));

  SoakBench late;
  late.seconds_left = 60;
  late.Phase("gpu.soak");
  CHECK(late.ran.empty());
  CHECK(late.Of("gpu01").detail == late.DeadlineText());
}

TEST_CASE("gpu.soak: the nodes it does not soak: gpu.driver failed (blocked), no nccl-tests; no GPUs and unreachable are the node phase's") {
  SoakBench run;
  run.Node("cpu01");
  run.probed.push_back({"cpu01", true, true, ""});
  run.node_outcomes["gpu01"]["gpu.driver"] = CheckOutcome::kFail;
  run.Node("gpu02").outputs[checks::NcclTestsProbe().id].exit_code = 1;
  run.probed.push_back({"gpu03", true, false, "ssh: connection refused"});
  run.Phase("gpu.soak");
  CHECK(run.ran.empty());
  CHECK(run.Count("cpu01") == 0);  // the node phase skipped it (no NVIDIA GPUs on the PCI bus)
  CHECK(run.Of("gpu01").detail == "not checked: the NVIDIA driver is not loaded on gpu01 (gpu.driver failed)");
  CHECK(run.Of("gpu02").detail == "nccl-tests is not installed on gpu02 (/usr/local/bin/all_reduce_perf; the nccl-tests role installs it)");
  CHECK(run.Count("gpu03") == 0);  // the node phase failed it (not checked: gpu03 is unreachable)
}

}  // namespace
}  // namespace clusterctl
