#include "agent/resources/nvidia_mig_layout.h"

#include <algorithm>
#include <map>

#include "agent/facts/nvidia_mig.h"
#include "common/strings.h"

namespace clusterctl::agent::nvidia_mig {
namespace {

constexpr std::string_view kAll = "all-";

// The seven-slice models share one geometry; only the memory sizes in the
// names differ. {compute, memory slices, instances}: 1g.Xgb 1/1/7, its +me
// 1/1/1, 1g.2Xgb 1/2/4, 2g 2/2/3, 3g 3/4/2, 4g 4/4/1, 7g 7/8/1.
GpuModel SevenSlice(std::string_view name, std::string_view one, std::string_view one_me, std::string_view one_double,
                    std::string_view two, std::string_view three, std::string_view four, std::string_view seven) {
  return {name, 7, 8, {{one, 1, 1, 7}, {one_me, 1, 1, 1}, {one_double, 1, 2, 4}, {two, 2, 2, 3}, {three, 3, 4, 2},
                       {four, 4, 4, 1}, {seven, 7, 8, 1}}};
}

const ProfileShape* Find(const GpuModel& model, std::string_view profile) {
  for (const ProfileShape& shape : model.profiles) {
    if (shape.name == profile) return &shape;
  }
  return nullptr;
}

std::vector<std::string> Names(const GpuModel& model) {
  std::vector<std::string> names;
  for (const ProfileShape& shape : model.profiles) names.emplace_back(shape.name);
  return names;
}

}  // namespace

const std::vector<GpuModel>& KnownGpuModels() {
  static const std::vector<GpuModel> kModels = {
      // A30: four slices of each.
      {"A30 24GB", 4, 4, {{"1g.6gb", 1, 1, 4}, {"1g.6gb+me", 1, 1, 1}, {"2g.12gb", 2, 2, 2}, {"2g.12gb+me", 2, 2, 1}, {"4g.24gb", 4, 4, 1}}},
      {"A100 40GB", 7, 8, {{"1g.5gb", 1, 1, 7}, {"1g.5gb+me", 1, 1, 1}, {"1g.10gb", 1, 2, 4}, {"2g.10gb", 2, 2, 3},
                           {"3g.20gb", 3, 4, 2}, {"4g.20gb", 4, 4, 1}, {"7g.40gb", 7, 8, 1}}},
      SevenSlice("A100 80GB, H100 80GB", "1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"),
      SevenSlice("H100 94GB", "1g.12gb", "1g.12gb+me", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb"),
      SevenSlice("H200 141GB", "1g.18gb", "1g.18gb+me", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"),
      SevenSlice("B200 180GB", "1g.23gb", "1g.23gb+me", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"),
  };
  return kModels;
}

Result<Layout> ParseLayout(const std::vector<std::string>& items) {
  if (items.empty()) return Status::InvalidArgument("is an empty layout (name the profiles of one GPU: [3g.40gb, 3g.40gb], or [all-1g.10gb])");
  Layout layout;
  for (const std::string& item : items) {
    const bool all = item.rfind(kAll, 0) == 0;
    const std::string profile = all ? item.substr(kAll.size()) : item;
    if (std::string why = facts::MigProfileNameRefusal(profile); !why.empty() || profile.find("c.") != std::string::npos) {
      return Status::InvalidArgument("has '" + Printable(item, 40) + "', which " +
                                     (why.empty() ? std::string("is a compute instance, not a GPU instance profile") : why) +
                                     " (or all-PROFILE)");
    }
    if (all && items.size() != 1) return Status::InvalidArgument("has '" + item + "', which stands alone (all of one GPU)");
    if (all) {
      layout.all = profile;
    } else {
      layout.profiles.push_back(profile);
    }
  }
  return layout;
}

Result<std::vector<std::string>> ProfilesOn(const Layout& layout, const GpuModel& model) {
  if (!layout.all.empty()) {
    const ProfileShape* shape = Find(model, layout.all);
    if (!shape) return Status::InvalidArgument(std::string(model.name) + " offers no " + layout.all);
    const int count = std::min({shape->max_instances, model.compute_slices / shape->compute, model.memory_slices / shape->memory});
    return std::vector<std::string>(count, layout.all);
  }
  std::map<std::string, int> counts;
  int compute = 0, memory = 0;
  std::vector<const ProfileShape*> shapes;
  for (const std::string& profile : layout.profiles) {
    const ProfileShape* shape = Find(model, profile);
    if (!shape) return Status::InvalidArgument(std::string(model.name) + " offers no " + profile);
    if (++counts[profile] > shape->max_instances) {
      return Status::InvalidArgument(std::string(model.name) + " holds at most " + std::to_string(shape->max_instances) + " " + profile);
    }
    compute += shape->compute;
    memory += shape->memory;
    shapes.push_back(shape);
  }
  if (compute > model.compute_slices || memory > model.memory_slices) {
    return Status::InvalidArgument("needs " + std::to_string(compute) + " compute and " + std::to_string(memory) +
                                   " memory slices; " + std::string(model.name) + " has " +
                                   std::to_string(model.compute_slices) + " and " + std::to_string(model.memory_slices));
  }
  std::stable_sort(shapes.begin(), shapes.end(), [](const ProfileShape* a, const ProfileShape* b) {
    return a->memory != b->memory ? a->memory > b->memory : a->compute > b->compute;
  });
  std::vector<std::string> ordered;
  for (const ProfileShape* shape : shapes) ordered.emplace_back(shape->name);
  return ordered;
}

std::string LayoutRefusal(std::string_view text) {
  Result<Layout> layout = ParseLayout(text.empty() ? std::vector<std::string>{} : Split(text, ','));
  if (!layout.ok()) return layout.status().message();
  std::vector<std::string> misfits;
  for (const GpuModel& model : KnownGpuModels()) {
    Result<std::vector<std::string>> on = ProfilesOn(*layout, model);
    if (on.ok()) return "";
    if (on.status().message().find(" offers no ") == std::string::npos) misfits.push_back(on.status().message());
  }
  if (!misfits.empty()) return "does not fit one GPU: " + Join(misfits, "; ");
  std::vector<std::string> offers;
  for (const GpuModel& model : KnownGpuModels()) offers.push_back(std::string(model.name) + ": " + Join(Names(model), " "));
  return "names profiles no one MIG GPU clusterctl knows offers together (" + Join(offers, "; ") + ")";
}

}  // namespace clusterctl::agent::nvidia_mig
