// The subcommands named at the front of a command line, read before CLI11
// parses it: for `clusterctl help CMD`, for "did you mean" on a mistyped
// command, and for pointing a usage error to the subcommand's own --help.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace clusterctl {

struct NamedCommand {
  CLI::App* command = nullptr;    // the deepest subcommand named (the app itself when none)
  std::vector<std::string> path;  // its names from the top: {"inventory", "check"}
};

// Follows `words` (argv without the program name) down the subcommands of
// `app` while each names one; stops at the first option or other word.
NamedCommand FindNamedCommand(CLI::App& app, const std::vector<std::string>& words);

// "" when `words` name commands that exist; otherwise the error for the
// first word that should have been a command of `named` and is not:
// "unknown command 'deplyo' (did you mean 'deploy'?)". A command that takes
// no subcommand takes any word (its positionals).
std::string UnknownCommandError(const NamedCommand& named, const std::vector<std::string>& words);

// "" when every option word in `words` is an option of `named` (or of a
// command above it); otherwise the error for the first that is not, with
// the closest option as a suggestion: "unknown option '--tag' (did you
// mean '--tags'?)". Words after `--` are never options.
std::string UnknownOptionError(const NamedCommand& named, const std::vector<std::string>& words);

// "clusterctl inventory check": the command line that names `named`.
std::string CommandName(const NamedCommand& named);

}  // namespace clusterctl
