#include "controller/cli/hostkey_command.h"

#include "controller/cli/exit_codes.h"

namespace clusterctl {

int RunHostKeyForget(const std::string& inventory_path, const std::vector<std::string>& hosts,
                     const GlobalOptions& global, const Services& services) {
  std::optional<Inventory> inventory = LoadInventoryOrReport(inventory_path, services, false);
  if (!inventory) return kExitUsage;
  int exit_code = kExitOk;
  auto state = OpenStateForWritingOrReport(StatePathsFor(*inventory, global), global, services, exit_code);
  if (!state) return exit_code;
  for (const std::string& host : hosts) {
    Status forgotten = state->ForgetHostKey(host);
    if (forgotten.ok()) {
      services.log->Info(host + ": recorded host key forgotten");
      state->RecordEvent(std::nullopt, host, "warning", "hostkey-forget", "recorded host key removed by the admin");
    } else {
      services.log->Error(host + ": " + forgotten.message());
      exit_code = kExitFailed;
    }
  }
  return exit_code;
}

}  // namespace clusterctl
