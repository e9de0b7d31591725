// The nvidia_mig kind against a fake nvidia-smi that keeps MIG state the
// way the driver does: its -lgip is the real H100 capture, its -lgi, -lci
// and mode query are printed in the captured formats from its state.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "agent/resources/registry.h"
#include "common/strings.h"
#include "tests/unit/fixture.h"
#include "controller/state/test_util.h"

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
  std::string minors;  // /proc/driver/nvidia-caps/mig-minors; "" for the driver's numbering of GPU 0

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
    } else if (line == "cat /proc/driver/nvidia-caps/mig-minors") {
      r.stdout_data = minors.empty() ? Gpu0Minors() : minors;
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
  // The driver's numbering (3 + 135 GPU + 9 GI, + 1 + CI), as real nodes show it (SOURCES.md).
  static std::string Gpu0Minors() {
    std::string text = "config 1\nmonitor 2\n";
    for (int gi = 0; gi < 15; ++gi) {
      text += "gpu0/gi" + std::to_string(gi) + "/access " + std::to_string(3 + 9 * gi) + "\n";
      for (int ci = 0; ci < 8; ++ci) {
        text += "gpu0/gi" + std::to_string(gi) + "/ci" + std::to_string(ci) + "/access " + std::to_string(4 + 9 * gi + ci) + "\n";
      }
    }
    return text;
  }
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

ResourceOutcome Run(const std::vector<std::string>& layout, bool apply, ResourceHost& host,
                    const std::string& gres_file = "") {
  nlohmann::json params = {{"layout", layout},
                           {"before", {"slurm-maintenance", "drain", "gpu01", "3600", "clusterctl: MIG"}},
                           {"after", {"mig-after"}}};
  if (!gres_file.empty()) {
    params["gres_file"] = gres_file;
    params["node_name"] = "gpu01";
  }
  return RunResource({"nvidia_mig", params, "", apply}, host);
}

std::vector<std::string> Mutations(const ResourceHost& host) {
  std::vector<std::string> ran;
  for (const ExecutedCommand& c : host.log()) {
    if (c.mutating) ran.push_back(Join(c.argv, " "));
  }
  return ran;
}

std::string FileText(const std::string& path) {
  std::ostringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
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

TEST_CASE("nvidia_mig: gres_file holds gres.conf's MultipleFiles lines of the MIG devices, written before after") {
  testing::TempDir dir;
  const std::string gres = dir.path() + "/gres-mig.conf";
  FakeNvidiaSmi node;
  ResourceOutcome applied = Run({"3g.40gb", "3g.40gb"}, true, node, gres);
  REQUIRE_MESSAGE(!applied.failed, applied.error);
  CHECK(Mutations(node).back() == "mig-after");
  const std::string written = FileText(gres);
  // GPU instances 1 and 2 (the fake's IDs), each with compute instance 0: minors 12/13 and 21/22.
  CHECK(written.find("NodeName=gpu01 Name=gpu Type=3g.40gb MultipleFiles=/dev/nvidia0,/dev/nvidia-caps/nvidia-cap12,"
                     "/dev/nvidia-caps/nvidia-cap13\n"
                     "NodeName=gpu01 Name=gpu Type=3g.40gb MultipleFiles=/dev/nvidia0,/dev/nvidia-caps/nvidia-cap21,"
                     "/dev/nvidia-caps/nvidia-cap22\n") != std::string::npos);

  const size_t before = node.log().size();
  ResourceOutcome again = Run({"3g.40gb", "3g.40gb"}, true, node, gres);
  CHECK_FALSE(again.changed);
  for (size_t i = before; i < node.log().size(); ++i) CHECK_FALSE(node.log()[i].mutating);

  // A file that lost its lines is a change of its own: drained, written, after.
  testing::WriteFileLine(gres, "# emptied");
  ResourceOutcome planned = Run({"3g.40gb", "3g.40gb"}, false, node, gres);
  REQUIRE(planned.changed);
  CHECK(planned.differences == std::vector<std::string>{gres + ": rewritten with 2 MIG device(s)"});
  FakeNvidiaSmi& same = node;
  const size_t at = same.log().size();
  REQUIRE_FALSE(Run({"3g.40gb", "3g.40gb"}, true, same, gres).failed);
  std::vector<std::string> ran;
  for (size_t i = at; i < same.log().size(); ++i) {
    if (same.log()[i].mutating) ran.push_back(Join(same.log()[i].argv, " "));
  }
  CHECK(ran == std::vector<std::string>{"slurm-maintenance drain gpu01 3600 clusterctl: MIG", "mig-after"});
  CHECK(FileText(gres) == written);
}

TEST_CASE("nvidia_mig: a MIG device whose minors the driver does not list fails, naming it") {
  testing::TempDir dir;
  FakeNvidiaSmi node;
  node.enabled = true;
  node.instances.push_back({"3g.40gb", 9, 1, true});
  node.minors = "config 1\nmonitor 2\ngpu0/gi1/access 12\n";
  ResourceOutcome planned = Run({"3g.40gb"}, false, node, dir.path() + "/gres-mig.conf");
  CHECK(planned.failed);
  CHECK(planned.error.find("no minor for gpu0/gi1 or its compute instance 0") != std::string::npos);
  node.minors = "gpu0 gi1 12\n";
  CHECK(Run({"3g.40gb"}, false, node, dir.path() + "/gres-mig.conf").error.find("mig-minors") != std::string::npos);
}

}  // namespace clusterctl::agent
