#include "controller/cli/command_context.h"

#include "controller/cli/exit_codes.h"
#include "inventory/loader.h"

namespace clusterctl {

std::optional<Inventory> LoadInventoryOrReport(const std::string& path, const Services& services,
                                               bool print_warnings) {
  Diagnostics diagnostics;
  std::optional<Inventory> inventory = LoadInventory(path, diagnostics);
  if (!inventory) {
    *services.err << diagnostics.ToString();
    *services.err << path << ": " << diagnostics.error_count() << " error"
                  << (diagnostics.error_count() == 1 ? "" : "s") << "; nothing was changed\n";
    return std::nullopt;
  }
  if (print_warnings) *services.err << diagnostics.ToString();
  return inventory;
}

StatePaths StatePathsFor(const Inventory& inventory, const GlobalOptions& options) {
  return StatePaths::For(inventory.base_dir, options.state_dir);
}

std::unique_ptr<StateStore> OpenStateForWritingOrReport(const StatePaths& paths, const GlobalOptions& options,
                                                        const Services& services, int& exit_code) {
  StateStore::WriterOptions writer{services.clock, services.filesystem, options.command_line};
  auto store = StateStore::OpenForWriting(paths, writer);
  if (!store.ok()) {
    *services.err << "clusterctl: " << store.status().message() << "\n";
    exit_code = store.status().code() == Status::Code::kBusy ? kExitStateBusy : kExitFailed;
    return nullptr;
  }
  if (const auto& stale = (*store)->cleared_stale_holder()) {
    *services.err << "clusterctl: note: the previous holder of the state lock, " << stale->Describe()
                  << ", ended without releasing it; the lock was cleared\n";
  }
  return std::move(store).value();
}

}  // namespace clusterctl
