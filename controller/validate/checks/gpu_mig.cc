// gpu.mig: every GPU holds the node's MIG layout (nvidia_mig_layout, the
// nvidia-mig role's): MIG mode on and the GPU instances the layout names,
// each with a compute instance, as nvidia-smi reports them (its mode query,
// mig -lgip, -lgi, -lci). A node without a layout is skipped. What differs
// fails, naming each GPU and its instances against the layout's. The
// testbed's SIMULATED driver and nvidia-smi are no reading: they fail, named.
#include "agent/resources/nvidia_mig_state.h"
#include "common/nvidia_facts.h"
#include "common/strings.h"
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

namespace mig = agent::nvidia_mig;
constexpr const char* kCheck = "gpu.mig";

bool DriverUp(const NodeReadings& n) { return n.HasGpus() && n.DriverModuleLoaded(); }

const ProbeSpec kModes{.id = "nvidia-smi mig mode",
                       .commands = {{"nvidia-smi", "--query-gpu=index,mig.mode.current", "--format=csv,noheader"}},
                       .when = DriverUp};
const ProbeSpec kProfiles{.id = "nvidia-smi mig -lgip", .commands = {{"nvidia-smi", "mig", "-lgip"}}, .when = DriverUp};
const ProbeSpec kGpuInstances{.id = "nvidia-smi mig -lgi", .commands = {{"nvidia-smi", "mig", "-lgi"}}, .when = DriverUp};
const ProbeSpec kComputeInstances{.id = "nvidia-smi mig -lci", .commands = {{"nvidia-smi", "mig", "-lci"}}, .when = DriverUp};

std::vector<std::string> LayoutItems(const NodeView& v) {
  std::vector<std::string> items;
  for (const nlohmann::json& item : v.vars.value("nvidia_mig_layout", nlohmann::json::array())) {
    items.push_back(item.is_string() ? item.get<std::string>() : "");
  }
  return items;
}

Requirement LayoutSet() {
  return {[](const NodeView& v) { return v.vars.contains("nvidia_mig_layout") && v.vars["nvidia_mig_layout"].is_array(); },
          [](const NodeView& v) { return "no nvidia_mig_layout for " + v.host() + " (its MIG is left as it is)"; }};
}

// A listing's text: "" where nvidia-smi says none exist (`none`), nullopt
// with `failed` set where it could not be read.
std::optional<std::string> Listing(const NodeView& v, const ProbeSpec& probe, const char* none,
                                   std::optional<CheckResult>& failed) {
  const ToolOutput& out = v.node.Output(probe.id);
  if (out.Succeeded()) return out.out;
  if (none && out.started && !out.timed_out && out.Both().find(none) != std::string::npos) return std::string();
  failed = ToolFailed(kCheck, kNode, v.host(), probe.id.c_str(), out, "the GPUs' MIG state cannot be read");
  return std::nullopt;
}

CheckResult JudgeStates(const NodeView& v, const mig::Layout& layout, const std::vector<mig::GpuState>& gpus,
                        const std::string& wanted) {
  std::vector<std::string> differs;
  for (const mig::GpuState& gpu : gpus) {
    Result<std::string> d = mig::Difference(layout, gpu);
    if (!d.ok()) return Fail(kCheck, kNode, v.host(), d.status().message(), {}, "", wanted);
    if (!d->empty()) differs.push_back(*d);
  }
  if (!differs.empty()) {
    return Fail(kCheck, kNode, v.host(),
                "the MIG layout differs from the inventory's (" + wanted + ") on " + Plural(differs.size(), "GPU") + ": " +
                    Join(differs, "; "),
                differs, Plural(gpus.size() - differs.size(), "GPU") + " as laid out", wanted);
  }
  return Pass(kCheck, kNode, v.host(), Plural(gpus.size(), "GPU") + " as laid out", wanted);
}

CheckResult Judge(const NodeView& v) {
  const std::vector<std::string> items = LayoutItems(v);
  const std::string wanted = Join(items, ", ");
  if (SimulatedNvidiaDriver(v.node.facts)) {
    return Fail(kCheck, kNode, v.host(),
                "the NVIDIA driver and nvidia-smi here are the testbed's SIMULATED ones: their MIG layout is no reading",
                {"/sys/module/nvidia/SIMULATED: present"}, "simulated", wanted);
  }
  Result<mig::Layout> layout = mig::ParseLayout(items);
  if (!layout.ok()) return Fail(kCheck, kNode, v.host(), "nvidia_mig_layout " + layout.status().message());
  std::optional<CheckResult> failed;
  std::optional<std::string> modes_text = Listing(v, kModes, nullptr, failed);
  if (!modes_text) return *failed;
  Result<std::map<int, bool>> modes = mig::ParseMigModes(*modes_text);
  if (!modes.ok()) return Fail(kCheck, kNode, v.host(), modes.status().message(), TailLines(*modes_text, 4));
  std::optional<std::string> lgip = "", lgi = "", lci = "";
  if (std::any_of(modes->begin(), modes->end(), [](const auto& m) { return m.second; })) {
    lgip = Listing(v, kProfiles, nullptr, failed);
    lgi = lgip ? Listing(v, kGpuInstances, "No GPU instances found", failed) : std::nullopt;
    lci = lgi ? Listing(v, kComputeInstances, "No compute instances found", failed) : std::nullopt;
    if (!lci) return *failed;
  }
  Result<std::vector<mig::GpuState>> gpus = mig::GpuStates(*modes, *lgip, *lgi, *lci);
  if (!gpus.ok()) return Fail(kCheck, kNode, v.host(), gpus.status().message());
  if (gpus->empty()) return Fail(kCheck, kNode, v.host(), "nvidia-smi lists no GPU", {}, "", wanted);
  return JudgeStates(v, *layout, *gpus, wanted);
}

const CheckRegistration kGpuMig({.name = kCheck,
                                 .scope = kNode,
                                 .summary = "every GPU holds the node's MIG layout (nvidia_mig_layout)",
                                 .rank = 115,
                                 .requirements = {GpusOnPciBus(), LayoutSet()},
                                 .prerequisites = {DriverLoaded()},
                                 .probes = {&kModes, &kProfiles, &kGpuInstances, &kComputeInstances},
                                 .verdict = Judge});

}  // namespace
}  // namespace clusterctl::checks
