// The man page clusterctl(1) and the bash and zsh completion scripts,
// generated from the CLI11 App that parses the command line (app.h), so they
// list exactly the commands and options --help does. `clusterctl __generate
// man|bash|zsh` prints them; the build writes them to build/generated/.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace clusterctl {

struct CommandValues;

// Writes the text named by `format` ("man", "bash" or "zsh") to `out`.
// Returns the exit code: 0, or 2 for an unknown format.
int PrintGenerated(const CLI::App& app, const std::string& format, std::ostream& out);

std::string ManPage(const CLI::App& app);
std::string BashCompletion(const CLI::App& app);
std::string ZshCompletion(const CLI::App& app);

// Text made safe for a roff line: backslashes as \e, every '-' as \- (so
// option names stay minus signs one can copy), and \& before a '.' or '\''
// that starts a line (it would be read as a request).
std::string RoffEscape(std::string_view text);

// The subcommands a user sees, in definition order: hidden ones (an empty
// group, e.g. __generate) are left out.
std::vector<const CLI::App*> VisibleSubcommands(const CLI::App& command);

// The options and positionals documented for a command, in definition order:
// all but the help flag, which every command has.
std::vector<const CLI::Option*> DocumentedOptions(const CLI::App& command);

// What a completion offers for an option's value or a positional, chosen by
// its metavar (type_name) or positional name: INVENTORY: *.yaml/*.yml files;
// FILE: files; DIR: directories; PATTERN or HOST: the host and group names
// of the inventory on the command line; COMMAND: commands; --tags and
// --skip-tags: the roles' tags; --roles and ROLE: role names; --checks:
// check names and prefixes (these three from `__complete-names --kind`,
// with the inventory's own roles when one is on the command line); else
// nothing. A flag (no value) is kFlag.
enum class CompletionKind { kFlag, kInventory, kFile, kDirectory, kNames, kCommand, kTags, kRoles, kChecks, kOther };
CompletionKind CompletionKindOf(const CLI::Option& option);

// "inventory check" for that subcommand; "" for the top-level app.
std::string CommandPath(const CLI::App& command);

// `__generate FORMAT`, hidden: the man page and completions at build time (command_values.h).
void AddGenerateCommand(CLI::App& app, CommandValues& values);

// `completion bash|zsh`: the same scripts as `__generate`, for a user who
// installed clusterctl without its packaged completions.
void AddCompletionCommand(CLI::App& app, CommandValues& values);

}  // namespace clusterctl
