#include "controller/cli/hostkey_command.h"
#include <CLI/CLI.hpp>

#include "common/strings.h"
#include "controller/cli/exit_codes.h"

namespace clusterctl {

int RunHostKeyForget(const std::string& inventory_path, const std::vector<std::string>& hosts,
                     const GlobalOptions& global, const Services& services) {
  std::optional<Inventory> inventory = LoadInventoryOrReport(inventory_path, services, false);
  if (!inventory) return kExitUsage;
  // Every name is checked before any key is forgotten: a typo is a usage
  // error (exit 2) that changes nothing.
  std::vector<std::string> names;
  for (const Host& h : inventory->hosts) names.push_back(h.name);
  bool unknown = false;
  for (const std::string& host : hosts) {
    if (inventory->FindHost(host)) continue;
    services.log->Error("clusterctl: host '" + Printable(host, 60) + "' is not in " + inventory_path + DidYouMean(host, names));
    unknown = true;
  }
  if (unknown) {
    services.log->Error("nothing was changed");
    return kExitUsage;
  }
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

void AddHostkeyCommand(CLI::App& app, CommandValues& v) {
  struct ForgetValues {
    std::string inventory_path;
    std::vector<std::string> hosts;
  };
  ForgetValues& o = v.Keep<ForgetValues>();
  CLI::App* hostkey = app.add_subcommand("hostkey", "manage recorded SSH host keys");
  hostkey->require_subcommand(1);
  CLI::App* forget = hostkey->add_subcommand("forget", "forget the recorded host key of reinstalled hosts");
  AddInventoryArgument(forget, v, o.inventory_path, &o.hosts, /*rest_required=*/true);
  forget->add_option("HOST", o.hosts, "hosts (or jump:HOST:PORT)");
  AddStateOption(forget, v);
  forget->callback([&v, &o] {
    if (o.hosts.empty()) throw CLI::RequiredError("HOST");
    v.exit_code = RunHostKeyForget(o.inventory_path, o.hosts, v.options, v.services);
  });
}

}  // namespace clusterctl
