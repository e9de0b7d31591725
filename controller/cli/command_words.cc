#include "controller/cli/command_words.h"

#include <algorithm>

#include "common/strings.h"

namespace clusterctl {
namespace {

// The subcommands an admin may type: hidden ones (their group is empty) run
// but are never suggested.
std::vector<std::string> VisibleSubcommands(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (!sub->get_group().empty()) names.push_back(sub->get_name());
  }
  return names;
}

CLI::App* Subcommand(CLI::App& app, const std::string& name) {
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->check_name(name)) return sub;
  }
  return nullptr;
}

// "--tags", "-t": every spelling of the options of `command` and of the
// commands above it (CLI11 lets a subcommand take its parents' options).
std::vector<std::string> OptionSpellings(const CLI::App& command) {
  std::vector<std::string> spellings;
  for (const CLI::App* app = &command; app != nullptr; app = app->get_parent()) {
    for (const CLI::Option* option : app->get_options()) {
      if (option->get_positional()) continue;
      for (const std::string& name : option->get_lnames()) spellings.push_back("--" + name);
      for (const std::string& name : option->get_snames()) spellings.push_back("-" + name);
    }
  }
  return spellings;
}

// "--tag" of "--tag=x"; "-x" of "-xvalue" is left whole (short options may
// be grouped, so only a lone unknown short option is reported).
std::string OptionWord(const std::string& word) { return word.substr(0, word.find('=')); }

}  // namespace

NamedCommand FindNamedCommand(CLI::App& app, const std::vector<std::string>& words) {
  NamedCommand named{&app, {}};
  for (const std::string& word : words) {
    if (word.empty() || word[0] == '-') break;
    CLI::App* sub = Subcommand(*named.command, word);
    if (!sub) break;
    named.command = sub;
    named.path.push_back(sub->get_name());
  }
  return named;
}

std::string UnknownCommandError(const NamedCommand& named, const std::vector<std::string>& words) {
  if (named.path.size() >= words.size()) return "";
  const std::string& word = words[named.path.size()];
  if (word.empty() || word[0] == '-') return "";
  const std::vector<std::string> commands = VisibleSubcommands(*named.command);
  if (commands.empty()) return "";  // a leaf command: the word is a positional
  std::string hint = DidYouMean(word, commands);
  // A command with subcommands that takes positionals too (`roles INVENTORY`):
  // a word is its positional unless it is a near miss of a subcommand.
  if (hint.empty() && !named.command->get_options([](const CLI::Option* o) { return o->get_positional(); }).empty()) {
    return "";
  }
  if (hint.empty()) hint = " (commands: " + Join(commands, ", ") + ")";
  return "unknown command '" + Printable(word, 40) + "'" + (named.path.empty() ? "" : " of '" + CommandName(named) + "'") +
         hint;
}

std::string UnknownOptionError(const NamedCommand& named, const std::vector<std::string>& words) {
  const std::vector<std::string> spellings = OptionSpellings(*named.command);
  for (const std::string& word : words) {
    if (word == "--") break;
    if (word.size() < 2 || word[0] != '-' || (word[1] != '-' && word.size() > 2)) continue;
    const std::string option = OptionWord(word);
    if (std::find(spellings.begin(), spellings.end(), option) != spellings.end()) continue;
    std::string hint = DidYouMean(option, spellings);
    if (hint.empty()) hint = " (see '" + CommandName(named) + " --help' for its options)";
    return "unknown option '" + Printable(option, 40) + "'" + (named.path.empty() ? "" : " of '" + CommandName(named) + "'") +
           hint;
  }
  return "";
}

std::string CommandName(const NamedCommand& named) {
  return named.path.empty() ? "clusterctl" : "clusterctl " + Join(named.path, " ");
}

}  // namespace clusterctl
