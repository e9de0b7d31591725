#include "inventory/inventory_file.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "common/strings.h"

namespace clusterctl {

Result<std::string> ResolveInventoryFile(const std::string& base_dir, const std::string& name) {
  namespace fs = std::filesystem;
  if (name.empty()) return Status::InvalidArgument("an empty path names no file");
  std::error_code error;
  const fs::path base = fs::weakly_canonical(fs::absolute(base_dir.empty() ? "." : base_dir, error), error);
  if (error) return Status::IoError("the inventory's directory " + base_dir + ": " + error.message());
  const fs::path resolved = fs::weakly_canonical(base / name, error);
  if (error) return Status::IoError("'" + Printable(name, 200) + "': " + error.message());
  // Inside: `base` is a prefix of `resolved`, component by component.
  auto [base_end, resolved_at] = std::mismatch(base.begin(), base.end(), resolved.begin(), resolved.end());
  if (base_end == base.end() && resolved_at != resolved.end()) return resolved.string();
  if (base_end == base.end()) {
    return Status::InvalidArgument("'" + Printable(name, 200) + "' names the inventory's directory, not a file in it");
  }
  const std::string why = fs::path(name).is_absolute() ? "an absolute path outside it"
                          : resolved.string() == (base / name).lexically_normal().string()
                              ? "'..' leads out of it"
                              : "a symbolic link leads out of it";
  return Status::InvalidArgument("'" + Printable(name, 200) + "' resolves to " + Printable(resolved.string(), 200) +
                                 ", outside the inventory's directory " + base.string() + " (" + why +
                                 "): only files inside it are sent to nodes");
}

}  // namespace clusterctl
