#include "controller/cli/command_context.h"

#include "controller/cli/exit_codes.h"
#include "controller/run/checked_inventory.h"
#include "inventory/loader.h"

namespace clusterctl {

std::optional<Inventory> LoadInventoryOrReport(const std::string& path, const Services& services,
                                               bool print_warnings) {
  Diagnostics diagnostics;
  std::optional<Inventory> inventory = LoadInventory(path, diagnostics);
  if (!inventory) {
    LogDiagnostics(diagnostics, *services.log);
    services.log->Error(path + ": " + std::to_string(diagnostics.error_count()) + " error" +
                        (diagnostics.error_count() == 1 ? "" : "s") + "; nothing was changed");
    return std::nullopt;
  }
  if (print_warnings) LogDiagnostics(diagnostics, *services.log);
  return inventory;
}

std::optional<Inventory> LoadCheckedInventoryOrReport(const std::string& path, const std::vector<std::string>& extra_vars,
                                                      const Services& services) {
  Diagnostics diagnostics;
  CheckedInventory checked = LoadCheckedInventory(path, {}, extra_vars, diagnostics);
  if (!checked.ok()) {
    LogDiagnostics(diagnostics, *services.log);
    services.log->Error(path + ": " + std::to_string(diagnostics.error_count()) + " error" +
                        (diagnostics.error_count() == 1 ? "" : "s") + "; nothing was changed");
    return std::nullopt;
  }
  return std::move(checked.inventory);
}

void LogDiagnostics(const Diagnostics& diagnostics, Logger& log) {
  for (const Diagnostic& d : diagnostics.Sorted()) {
    log.Log(d.severity == Diagnostic::Severity::kError ? LogLevel::kError : LogLevel::kWarning, d.ToString());
  }
}

StatePaths StatePathsFor(const Inventory& inventory, const GlobalOptions& options) {
  return StatePaths::For(inventory.base_dir, options.state_dir);
}

std::unique_ptr<StateStore> OpenStateForWritingOrReport(const StatePaths& paths, const GlobalOptions& options,
                                                        const Services& services, int& exit_code) {
  StateStore::WriterOptions writer{services.clock, services.filesystem, options.command_line};
  auto store = StateStore::OpenForWriting(paths, writer);
  if (!store.ok()) {
    services.log->Error("clusterctl: " + store.status().message());
    exit_code = store.status().code() == Status::Code::kBusy ? kExitStateBusy : kExitFailed;
    return nullptr;
  }
  if (const auto& stale = (*store)->cleared_stale_holder()) {
    services.log->Info("clusterctl: note: the previous holder of the state lock, " + stale->Describe() +
                       ", ended without releasing it; the lock was cleared");
  }
  return std::move(store).value();
}

}  // namespace clusterctl
