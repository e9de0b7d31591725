// The check registry (check_spec.h): the specs, their order, docs/validation.md
// held to them, the selection's closure over prerequisites, the probes a node
// gets, and "no reading, no pass" for every spec, present and future.
#include "controller/validate/check_spec.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include "controller/validate/check_selection.h"
#include "controller/validate/checks/spec_test_util.h"
#include "tests/unit/fixture.h"
#include "tests/unit/test_paths.h"

namespace clusterctl {
namespace {

// docs/validation.md's check table: (name, scope) per row, in order.
std::vector<std::pair<std::string, std::string>> DocumentedChecks() {
  std::istringstream doc(testing::ReadFixture(testing::SourceDir() + "/docs/validation.md"));
  std::vector<std::pair<std::string, std::string>> rows;
  static const std::regex kRow(R"(^\| `([a-z0-9_.]+)` \| (node|cluster|pair) \|)");
  bool in_table = false;
  for (std::string line; std::getline(doc, line);) {
    if (line.rfind("| Check | Scope | Passes when | Skipped when |", 0) == 0) in_table = true;
    else if (in_table && line.empty()) break;
    std::smatch m;
    if (in_table && std::regex_search(line, m, kRow)) rows.emplace_back(m[1], m[2]);
  }
  return rows;
}

TEST_CASE("docs/validation.md's check table lists every registered check, in report order, with its scope") {
  std::vector<std::pair<std::string, std::string>> registered;
  for (const CheckSpec* spec : CheckSpecs()) registered.emplace_back(spec->name, ToString(spec->scope));
  CHECK(DocumentedChecks() == registered);
  CHECK(registered.size() >= 28);
}

TEST_CASE("every spec states what it checks, and its prerequisites are judged before it") {
  for (const CheckSpec* spec : CheckSpecs()) {
    CAPTURE(spec->name);
    CHECK(!spec->summary.empty());
    for (const Prerequisite& p : spec->prerequisites) {
      const CheckSpec* before = FindCheckSpec(p.check);
      REQUIRE(before != nullptr);
      if (spec->verdict != nullptr) {
        CHECK(before->rank < spec->rank);
        const bool says_why = p.why != nullptr;
        CHECK_MESSAGE(says_why, p.check << " has no reason");
      }
    }
    if (spec->verdict == nullptr) continue;
    CHECK(spec->scope == CheckScope::kNode);
  }
}

std::set<std::string> Needed(const std::vector<std::string>& names) {
  auto selection = CheckSelection::Parse(names);
  REQUIRE(selection.ok());
  return NeededChecks(*selection);
}

TEST_CASE("a selected check brings its prerequisites, transitively, and nothing else") {
  CHECK(Needed({"slurm.gpu_job"}) == std::set<std::string>{"slurm.gpu_job", "slurm.node", "gpu.count", "gpu.driver"});
  CHECK(Needed({"ib.write_bw"}) == std::set<std::string>{"ib.write_bw", "ib.ports"});
  CHECK(Needed({"node.disk"}) == std::set<std::string>{"node.disk"});
  std::set<std::string> all_but_nccl = Needed({"!nccl"});
  CHECK(all_but_nccl.count("nccl.node") == 0);
  CHECK(all_but_nccl.count("gpu.ecc") == 1);
  // The functional level needs every check but the acceptance ones; the acceptance level every check.
  const size_t acceptance = std::count_if(CheckSpecs().begin(), CheckSpecs().end(),
                                          [](const CheckSpec* s) { return s->level == CheckLevel::kAcceptance; });
  CHECK(acceptance >= 3);
  CHECK(Needed({}).size() == CheckSpecs().size() - acceptance);
  CHECK(Needed({}).count("net.iperf3") == 0);
  auto every = CheckSelection::Parse({}, CheckLevel::kAcceptance);
  REQUIRE(every.ok());
  CHECK(NeededChecks(*every).size() == CheckSpecs().size());
}

// A GPU node with the driver loaded and an InfiniBand port, as its facts say.
NodeReadings GpuNode() {
  nlohmann::json facts = {{"pci", {{"gpu_count", 8}}},
                          {"modules", {"nvidia", "nvidia_peermem"}},
                          {"nvidia_driver", "550.54.15"},
                          {"ib_ports", {{{"device", "mlx5_0"}, {"port", 1}, {"state", "4: ACTIVE"}}}}};
  return NodeReadings::FromFacts("dgx01", facts);
}

std::vector<std::string> ProbeIds(const NodeReadings& node, const std::vector<std::string>& checks) {
  nlohmann::json vars = nlohmann::json::object();
  NodeView view{node, vars, NodeRole{}, nullptr, nullptr};
  std::vector<std::string> ids;
  for (const ProbeSpec* probe : ProbesFor(view, Needed(checks))) ids.push_back(probe->id);
  return ids;
}

TEST_CASE("the probe phase runs each probe once per node, however many checks read it") {
  std::vector<std::string> ids = ProbeIds(GpuNode(), {});
  CHECK(std::count(ids.begin(), ids.end(), "nvidia-smi -q") == 1);
  int readers = 0;
  for (const CheckSpec* spec : CheckSpecs()) {
    readers += std::any_of(spec->probes.begin(), spec->probes.end(), [](const ProbeSpec* p) { return p->id == "nvidia-smi -q"; });
  }
  CHECK(readers >= 6);
  std::set<std::string> unique(ids.begin(), ids.end());
  CHECK(unique.size() == ids.size());

  // What the node has decides what runs: no GPUs, no GPU tool; no driver, only the kernel log.
  NodeReadings plain = NodeReadings::FromFacts("cpu01", nlohmann::json::object());
  CHECK(ProbeIds(plain, {"gpu"}).empty());
  NodeReadings no_driver = GpuNode();
  no_driver.modules.clear();
  CHECK(ProbeIds(no_driver, {"gpu"}) == std::vector<std::string>{"kernel log NVRM", "kernel log last line"});
  // The selection decides too: gpu.ecc alone reads nvidia-smi -q and nothing else.
  CHECK(ProbeIds(GpuNode(), {"gpu.ecc"}) == std::vector<std::string>{"nvidia-smi -q"});
}

TEST_CASE("no node check passes on the testbed's simulated driver, whatever facts it gives") {
  // The simulated module's facts as a real driver's (DMA-BUF, a version),
  // and a machine whose own /proc/modules lists nvidia and nvidia_peermem's
  // log is empty: the facts alone would pass gpu.driver and ib.peermem.
  nlohmann::json facts = {{"pci", {{"gpu_count", 2}}},
                          {"modules", {"nvidia"}},
                          {"nvidia_driver", "550.144.03"},
                          {"nvidia", {{"simulated", true}, {"loaded_version", "550.144.03"}}},
                          {"gpudirect", {{"kernel_modules", "open"}, {"dmabuf", true}, {"recommended", "dmabuf"}}},
                          {"ib_ports", {{{"device", "mlx5_0"}, {"port", 1}, {"state", "4: ACTIVE"}}}}};
  testing::SpecBench bench;
  bench.node = NodeReadings::FromFacts("node02", facts);
  CHECK(bench.node.driver_version.empty());
  CHECK_FALSE(bench.node.DriverModuleLoaded());
  bench.Reads("kernel log peermem", "", 1);  // journalctl --grep: no line
  const CheckResult driver = bench.Judge("gpu.driver");
  CHECK(driver.outcome == CheckOutcome::kFail);
  CHECK(driver.detail == "driver not loaded: 2 NVIDIA GPUs on the PCI bus, but the nvidia module is the testbed's SIMULATED one");
  CHECK(bench.Judge("ib.peermem").outcome == CheckOutcome::kFail);
  for (const CheckSpec* spec : CheckSpecs()) {
    if (spec->verdict == nullptr || spec->needs_controller) continue;
    CAPTURE(spec->name);
    if (spec->name.rfind("gpu.", 0) == 0 || spec->name == "ib.peermem") CHECK(bench.Judge(spec->name).outcome != CheckOutcome::kPass);
  }
  // The same facts from a real driver pass both (the check above is the marker's).
  facts["nvidia"]["simulated"] = false;
  bench.node = NodeReadings::FromFacts("node02", facts);
  bench.Reads("kernel log peermem", "", 1);
  CHECK(bench.Judge("gpu.driver").outcome == CheckOutcome::kPass);
  CHECK(bench.Judge("ib.peermem").outcome == CheckOutcome::kPass);
}

TEST_CASE("no spec passes a node whose probes gave it nothing to read") {
  for (const CheckSpec* spec : CheckSpecs()) {
    if (spec->verdict == nullptr || spec->needs_controller || spec->probes.empty()) continue;
    CAPTURE(spec->name);
    testing::SpecBench bench;
    bench.node = GpuNode();
    CheckResult r = bench.Judge(spec->name);  // nothing ran: every output not started
    CHECK(r.check == spec->name);
    CHECK(r.outcome != CheckOutcome::kPass);
    for (const ProbeSpec* probe : spec->probes) bench.Reads(probe->id, "");  // ran, printed nothing
    r = bench.Judge(spec->name);
    CHECK(r.outcome != CheckOutcome::kPass);
  }
}

}  // namespace
}  // namespace clusterctl
