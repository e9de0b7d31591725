#include "controller/cli/command_values.h"

#include <CLI/CLI.hpp>

#include <cstdlib>

#include "controller/cli/remote_command.h"

namespace clusterctl {

CommandValues::CommandValues(const Services& s) : services(s) {
  if (!services.log) {
    own_log = std::make_unique<Logger>(*services.err);
    services.log = own_log.get();
  }
}

void AddInventoryArgument(CLI::App* command, CommandValues& v, std::string& target, std::vector<std::string>* rest,
                          bool rest_required, bool optional) {
  CommandValues::InventorySource& source = v.inventory_sources.emplace_back();
  source = {command, {"", "", rest, rest_required}, &target, optional};
  command->add_option("INVENTORY", source.argument.positional,
                      std::string("inventory file (or -i FILE, or set ") + kInventoryVariable + ")");
  command->add_option("-i,--inventory", source.argument.option, "inventory file, instead of INVENTORY")
      ->type_name("INVENTORY");
}

void ResolveInventories(CommandValues& v) {
  for (CommandValues::InventorySource& source : v.inventory_sources) {
    if (!source.command->parsed()) continue;
    if (source.optional && source.argument.positional.empty() && source.argument.option.empty() &&
        !std::getenv(kInventoryVariable)) {
      continue;
    }
    Result<std::string> path = ResolveInventory(source.argument, std::getenv(kInventoryVariable));
    if (!path.ok()) throw CLI::ValidationError(path.status().message());
    *source.target = *path;
  }
}

void AddStrictFlag(CLI::App* command, bool& strict) {
  command->add_flag("--strict", strict, "treat the inventory's warnings as errors (exit 2)");
}

Diagnostics WarningsAsErrors(const Diagnostics& diagnostics) {
  Diagnostics strict;
  for (const Diagnostic& d : diagnostics.items()) {
    if (d.severity == Diagnostic::Severity::kWarning) {
      strict.Error(d.where, d.message + " (an error with --strict)");
    } else {
      strict.Error(d.where, d.message);
    }
  }
  return strict;
}

// Metavars matter beyond --help: the completions complete a PATTERN or HOST
// with the inventory's names, a FILE or DIR with paths (generate_docs.h).
void AddStateOption(CLI::App* command, CommandValues& v) {
  command->add_option("--state", v.options.state_dir, "state directory (default: .clusterctl beside the inventory)")
      ->type_name("DIR");
}

void AddRemoteOptions(CLI::App* command, CommandValues& v, RemoteCommandOptions& remote,
                      std::vector<std::string>* rest) {
  AddInventoryArgument(command, v, remote.inventory_path, rest);
  command->add_option("-l,--limit", remote.limit, "hosts: names, groups, ranges, globs; !x excludes (default: every host)")
      ->type_name("PATTERN");
  command->add_option("-f,--forks", remote.forks, "hosts in flight at once")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  command->add_flag("-K,--ask-become-pass", remote.ask_become_pass,
                    "ask once for the sudo password (or set CLUSTERCTL_SUDO_PASSWORD)");
  command->add_flag("--json", v.options.json, "JSON output");
  AddStateOption(command, v);
}

void AddExtraVarsOption(CLI::App* command, RemoteCommandOptions& remote) {
  command->add_option("-e,--extra-vars", remote.extra_vars,
                      "KEY=VALUE or @FILE.yaml: variables over every inventory level (repeatable; typed as YAML)")
      ->type_name("VARS")
      ->allow_extra_args(false);
}

}  // namespace clusterctl
