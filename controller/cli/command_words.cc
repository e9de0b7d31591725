#include "controller/cli/command_words.h"

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
  if (hint.empty()) hint = " (commands: " + Join(commands, ", ") + ")";
  return "unknown command '" + Printable(word, 40) + "'" + (named.path.empty() ? "" : " of '" + CommandName(named) + "'") +
         hint;
}

std::string CommandName(const NamedCommand& named) {
  return named.path.empty() ? "clusterctl" : "clusterctl " + Join(named.path, " ");
}

}  // namespace clusterctl
