// A MIG layout: the GPU instances every GPU of a node is split into, as the
// inventory names them (`nvidia_mig_layout: [3g.40gb, 3g.40gb]`, or one
// `all-PROFILE` item: as many of that profile as the GPU holds, mig-parted's
// `all-1g.10gb` convention), and the MIG geometry of the GPU models
// clusterctl knows (NVIDIA's MIG User Guide, "Supported MIG Profiles"; the
// H100 80GB row checked against a real `nvidia-smi mig -lgip`,
// tests/fixtures/captured/nvidia-smi-mig-lgip--4xH100-SXM5-80GB--1.txt).
//
// The inventory check (`syntax: mig-layout`) refuses a layout that no known
// model offers or fits; on the node, the GPU's own `-lgip` is the authority
// (profile IDs, counts), and nvidia-smi refuses a placement it cannot make.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace clusterctl::agent::nvidia_mig {

// A GPU instance profile of a model: its compute and memory slices and how
// many instances of it one GPU holds.
struct ProfileShape {
  std::string_view name;  // "3g.40gb"
  int compute = 0;
  int memory = 0;
  int max_instances = 0;
};

struct GpuModel {
  std::string_view name;  // "A100 80GB, H100 80GB"
  int compute_slices = 0;
  int memory_slices = 0;
  std::vector<ProfileShape> profiles;
};

const std::vector<GpuModel>& KnownGpuModels();

// A layout as written: `profiles` (one GPU's instances), or `all` alone.
struct Layout {
  std::vector<std::string> profiles;
  std::string all;  // "1g.10gb" of "all-1g.10gb"
};

// The items of the inventory's list; InvalidArgument when an item is not a
// profile name or "all-PROFILE", when "all-" is not alone, or when the list is empty.
Result<Layout> ParseLayout(const std::vector<std::string>& items);

// One GPU's GPU instances on `model`, largest first (the order they are
// made in: a large instance needs an aligned placement, small ones fill
// in), or why the layout does not fit it: a profile it does not offer, more
// instances of one than it holds, more compute or memory slices than it has.
Result<std::vector<std::string>> ProfilesOn(const Layout& layout, const GpuModel& model);

// The `mig-layout` syntax: `text` is the list's items joined by ','; ""
// when some known model offers and fits it, else why (naming the models
// that offer its profiles and what each lacks).
std::string LayoutRefusal(std::string_view text);

}  // namespace clusterctl::agent::nvidia_mig
