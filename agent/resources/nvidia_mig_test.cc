// The nvidia_mig kind against a fake nvidia-smi that keeps MIG state the
// way the driver does: its -lgip is the real H100 capture, its -lgi, -lci
// and mode query are printed in the captured formats from its state.
#include <doctest/doctest.h>

#include <cstdio>

#include "agent/resources/registry.h"
#include "common/strings.h"
#include "tests/unit/fixture.h"

namespace clusterctl::agent {
namespace {

struct FakeInstance {
  std::string profile;
  int profile_id;
  int id;
  bool compute;
};

class FakeNvidiaSmi : public ResourceHost {
 public:
  bool enabled = false;
  bool pending_only = false;  // -mig 1 leaves the mode pending (an A100 in use)
  std::string mode_word;      // overrides "Enabled"/"Disabled" ("[N/A]")
  std::vector<FakeInstance> instances;
  int next_id = 1;

  CommandResult Run(const CommandSpec& spec, bool mutating) override {
    log_.push_back({spec.argv, mutating, 0});
    CommandResult r;
    r.exit_code = 0;
    const std::string line = Join(spec.argv, " ");
    if (line == "nvidia-smi --query-gpu=index,mig.mode.current --format=csv,noheader") {
      r.stdout_data = "0, " + (mode_word.empty() ? std::string(enabled ? "Enabled" : "Disabled") : mode_word) + "\n";
    } else if (line == "nvidia-smi mig -lgip") {
      r.stdout_data = testing::CapturedFixture("nvidia-smi-mig-lgip--4xH100-SXM5-80GB--1.txt");
    } else if (line == "nvidia-smi mig -lgi") {
      Listing(r, "No GPU instances found: Not Found", false);
    } else if (line == "nvidia-smi mig -lci") {
      Listing(r, "No compute instances found: Not Found", true);
    } else if (line == "nvidia-smi -i 0 -mig 1") {
      enabled = !pending_only;
      r.stdout_data = pending_only ? "Enabled MIG Mode for GPU 00000000:06:00.0\nWarning: MIG mode is in pending enable state\n"
                                   : "Enabled MIG Mode for GPU 00000000:06:00.0\nAll done.\n";
    } else if (line == "nvidia-smi mig -i 0 -dci") {
      for (FakeInstance& i : instances) i.compute = false;
    } else if (line == "nvidia-smi mig -i 0 -dgi") {
      instances.clear();
    } else if (spec.argv.size() == 7 && line.rfind("nvidia-smi mig -i 0 -cgi ", 0) == 0 && spec.argv[6] == "-C") {
      Create(spec.argv[5]);
    }
    return r;
  }

 private:
  void Listing(CommandResult& r, const std::string& none, bool compute) const {
    bool any = false;
    std::string text = compute ? "| Compute instances:                                                 |\n"
                                 "| GPU     GPU       Name             Profile   Instance   Placement  |\n"
                               : "| GPU instances:                                        |\n"
                                 "| GPU   Name             Profile  Instance   Placement  |\n";
    text += "|====================================================|\n";
    char row[160];
    for (const FakeInstance& i : instances) {
      if (compute && !i.compute) continue;
      any = true;
      if (compute) {
        std::snprintf(row, sizeof row, "|   0  %5d       MIG %-12s %5d %9d          0:1     |\n", i.id, i.profile.c_str(), 0, 0);
      } else {
        std::snprintf(row, sizeof row, "|   0  MIG %-12s %7d %8d          0:1     |\n", i.profile.c_str(), i.profile_id, i.id);
      }
      text += row;
    }
    if (any) {
      r.stdout_data = text;
    } else {
      r.exit_code = 6;
      r.stdout_data = none + "\n";
    }
  }
  void Create(const std::string& ids) {
    for (const std::string& id : Split(ids, ',')) {
      const std::string profile = id == "9" ? "3g.40gb" : id == "19" ? "1g.10gb" : id == "14" ? "2g.20gb" : "?";
      instances.push_back({profile, std::stoi(id), next_id++, true});
    }
  }
};

ResourceOutcome Run(const std::vector<std::string>& layout, bool apply, ResourceHost& host) {
  nlohmann::json params = {{"layout", layout},
                           {"before", {"slurm-maintenance", "drain", "gpu01", "3600", "clusterctl: MIG"}},
                           {"after", {"mig-after"}}};
  return RunResource({"nvidia_mig", params, "", apply}, host);
}

std::vector<std::string> Mutations(const ResourceHost& host) {
  std::vector<std::string> ran;
  for (const ExecutedCommand& c : host.log()) {
    if (c.mutating) ran.push_back(Join(c.argv, " "));
  }
  return ran;
}

FakeNvidiaSmi SevenOnes() {
  FakeNvidiaSmi node;
  node.enabled = true;
  for (int id = 7; id <= 13; ++id) node.instances.push_back({"1g.10gb", 19, id, true});
  return node;
}

}  // namespace

TEST_CASE("nvidia_mig: MIG off -> drain once, mode on, the layout made largest first, after once; then nothing") {
  FakeNvidiaSmi node;
  ResourceOutcome planned = Run({"1g.10gb", "3g.40gb"}, false, node);
  REQUIRE_MESSAGE(!planned.failed, planned.error);
  CHECK(planned.differences == std::vector<std::string>{"GPU 0: MIG mode off -> on, instances 1g.10gb, 3g.40gb"});
  CHECK_FALSE(node.RanMutatingCommand());

  ResourceOutcome applied = Run({"1g.10gb", "3g.40gb"}, true, node);
  REQUIRE_MESSAGE(!applied.failed, applied.error);
  CHECK(Mutations(node) == std::vector<std::string>{"slurm-maintenance drain gpu01 3600 clusterctl: MIG",
                                                    "nvidia-smi -i 0 -mig 1", "nvidia-smi mig -i 0 -cgi 9,19 -C",
                                                    "mig-after"});

  FakeNvidiaSmi& converged = node;
  const size_t before = converged.log().size();
  ResourceOutcome again = Run({"3g.40gb", "1g.10gb"}, true, converged);  // the same layout in another order
  CHECK_FALSE(again.failed);
  CHECK_FALSE(again.changed);
  for (size_t i = before; i < converged.log().size(); ++i) CHECK_FALSE(converged.log()[i].mutating);
}

TEST_CASE("nvidia_mig: a changed layout replaces the GPU's instances, one drain, one after") {
  FakeNvidiaSmi node = SevenOnes();
  ResourceOutcome planned = Run({"3g.40gb", "3g.40gb"}, false, node);
  REQUIRE_MESSAGE(!planned.failed, planned.error);
  CHECK(planned.differences ==
        std::vector<std::string>{"GPU 0: instances 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb -> "
                                 "3g.40gb, 3g.40gb"});
  ResourceOutcome applied = Run({"3g.40gb", "3g.40gb"}, true, node);
  REQUIRE_MESSAGE(!applied.failed, applied.error);
  CHECK(Mutations(node) == std::vector<std::string>{"slurm-maintenance drain gpu01 3600 clusterctl: MIG",
                                                    "nvidia-smi mig -i 0 -dci", "nvidia-smi mig -i 0 -dgi",
                                                    "nvidia-smi mig -i 0 -cgi 9,9 -C", "mig-after"});
  CHECK_FALSE(Run({"3g.40gb", "3g.40gb"}, false, node).changed);
}

TEST_CASE("nvidia_mig: all-PROFILE is the GPU's own total of it; a GPU instance without compute instance differs") {
  FakeNvidiaSmi node = SevenOnes();
  CHECK_FALSE(Run({"all-1g.10gb"}, false, node).changed);
  node.instances[2].compute = false;
  ResourceOutcome planned = Run({"all-1g.10gb"}, false, node);
  REQUIRE(planned.changed);
  CHECK(planned.differences[0].find("(1 without a compute instance)") != std::string::npos);
}

TEST_CASE("nvidia_mig: what the GPU does not offer, a pending mode, a GPU without MIG fail, naming it") {
  FakeNvidiaSmi h100 = SevenOnes();
  ResourceOutcome other = Run({"3g.20gb"}, false, h100);
  CHECK(other.failed);
  CHECK(other.error == "GPU 0 offers no MIG profile 3g.20gb");
  ResourceOutcome too_many = Run({"4g.40gb", "4g.40gb"}, false, h100);
  CHECK(too_many.error == "GPU 0 holds at most 1 4g.40gb");

  FakeNvidiaSmi a100;
  a100.pending_only = true;
  ResourceOutcome pending = Run({"3g.40gb"}, true, a100);
  CHECK(pending.failed);
  CHECK(pending.error.find("MIG mode is pending, not on: this GPU needs a reset") != std::string::npos);

  FakeNvidiaSmi l40s;
  l40s.mode_word = "[N/A]";
  ResourceOutcome none = Run({"3g.40gb"}, false, l40s);
  CHECK(none.failed);
  CHECK(none.error.find("[N/A]") != std::string::npos);
  CHECK_FALSE(l40s.RanMutatingCommand());
}

}  // namespace clusterctl::agent
