#include "controller/cli/generate_docs.h"

#include <CLI/CLI.hpp>
#include <doctest/doctest.h>
#include <sstream>

#include "controller/cli/app.h"

namespace clusterctl {
namespace {

// The subcommands a user sees, walked with CLI11 itself rather than with the
// generator's helpers, so that a helper that skips something fails here.
std::vector<const CLI::App*> UserSubcommands(const CLI::App& command) {
  return command.get_subcommands([](const CLI::App* sub) { return sub->get_group() != ""; });
}

std::string Path(const CLI::App& command) {
  const CLI::App* parent = command.get_parent();
  if (parent == nullptr) return "";
  return parent->get_parent() == nullptr ? command.get_name() : Path(*parent) + " " + command.get_name();
}

// A command's section of the man page: from its .SS line to the next heading.
std::string Section(const std::string& page, const std::string& path) {
  const std::string heading = ".SS \"" + RoffEscape(path) + "\"\n";
  size_t begin = page.find(heading);
  if (begin == std::string::npos) return "";
  size_t end = page.find("\n.S", begin + heading.size());
  return page.substr(begin, end - begin);
}

void CheckEveryOptionDocumented(const CLI::App& command, const std::string& page, int& commands) {
  for (const CLI::App* sub : UserSubcommands(command)) {
    ++commands;
    const std::string path = Path(*sub);
    const std::string section = Section(page, path);
    INFO("clusterctl ", path);
    REQUIRE(!section.empty());
    CHECK(section.find(RoffEscape(sub->get_description())) != std::string::npos);
    for (const CLI::Option* option : sub->get_options()) {
      if (option == sub->get_help_ptr()) continue;
      INFO("option ", option->get_name());
      for (const std::string& s : option->get_snames()) CHECK(section.find("\\fB\\-" + s + "\\fR") != std::string::npos);
      for (const std::string& l : option->get_lnames()) {
        CHECK(section.find("\\fB" + RoffEscape("--" + l) + "\\fR") != std::string::npos);
      }
      if (option->get_positional()) CHECK(section.find("\\fI" + option->get_name() + "\\fR") != std::string::npos);
      CHECK(section.find(RoffEscape(option->get_description())) != std::string::npos);
      if (!option->get_default_str().empty() && option->get_expected_max() > 0) {
        CHECK(section.find(RoffEscape("(default: " + option->get_default_str() + ")")) != std::string::npos);
      }
    }
    CheckEveryOptionDocumented(*sub, page, commands);
  }
}

void CheckEveryPathInBashTable(const CLI::App& command, const std::string& script) {
  for (const CLI::App* sub : UserSubcommands(command)) {
    INFO("clusterctl ", Path(*sub));
    CHECK(script.find("\n    '" + Path(*sub) + "')\n") != std::string::npos);
    CheckEveryPathInBashTable(*sub, script);
  }
}

}  // namespace

TEST_CASE("the man page has a section for every subcommand, with every option, its help and default") {
  Services services;
  CommandLine command_line(services);
  const std::string page = ManPage(command_line.app());

  int commands = 0;
  CheckEveryOptionDocumented(command_line.app(), page, commands);
  CHECK(commands >= 15);  // the walk found the commands (inventory check ... hold)
  CHECK(page.find(".SS \"inventory check\"") != std::string::npos);
  CHECK(page.find(".SS \"hostkey forget\"") != std::string::npos);
  CHECK(page.find(".SS \"__") == std::string::npos);  // hidden: __generate, __complete-names
  CHECK(page.find("complete\\-names") == std::string::npos);
  for (const char* section : {"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "EXIT STATUS", "ENVIRONMENT",
                              "FILES", "SEE ALSO"}) {
    CHECK(page.find(std::string("\n.SH ") + section + "\n") != std::string::npos);
  }
  for (const char* variable : {"CLUSTERCTL_DATA_DIR", "CLUSTERCTL_AGENT_DIR", "CLUSTERCTL_SUDO_PASSWORD"}) {
    CHECK(page.find(RoffEscape(variable)) != std::string::npos);
  }
}

TEST_CASE("the man page's text cannot be read as roff requests") {
  Services services;
  CommandLine command_line(services);
  std::istringstream page(ManPage(command_line.app()));
  std::string line;
  while (std::getline(page, line)) {
    INFO(line);
    if (line.rfind(".\\\"", 0) == 0) continue;  // the comment
    if (line[0] == '.' || line[0] == '\'') {
      const std::string request = line.substr(1, line.find(' ') - 1);
      CHECK((request == "TH" || request == "SH" || request == "SS" || request == "TP" || request == "PP" ||
             request == "br"));
    }
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '-') CHECK((i > 0 && line[i - 1] == '\\'));  // every hyphen a minus sign: \-
    }
  }
}

TEST_CASE("roff escaping: requests at line starts, backslashes, hyphens") {
  CHECK(RoffEscape(".rm everything") == "\\&.rm everything");
  CHECK(RoffEscape("'bp") == "\\&'bp");
  CHECK(RoffEscape("one\n.two") == "one\n\\&.two");
  CHECK(RoffEscape("a.b 'c'") == "a.b 'c'");
  CHECK(RoffEscape("C:\\path\\fB") == "C:\\epath\\efB");
  CHECK(RoffEscape("--limit -l") == "\\-\\-limit \\-l");
  CHECK(RoffEscape("") == "");
}

TEST_CASE("the bash completion lists every subcommand and nested subcommand") {
  Services services;
  CommandLine command_line(services);
  const std::string script = BashCompletion(command_line.app());

  CheckEveryPathInBashTable(command_line.app(), script);
  CHECK(script.find("subcommands='inventory status facts run deploy plan validate checks serve history hostkey power hold roles vars version completion'") !=
        std::string::npos);
  CHECK(script.find("subcommands='check show import'") != std::string::npos);
  CHECK(script.find(" --limit:names ") != std::string::npos);  // host and group names from the inventory
  CHECK(script.find("__generate'") == std::string::npos);
  CHECK(script.find("complete -F _clusterctl clusterctl") != std::string::npos);
}

TEST_CASE("completion kinds follow the metavar or the positional's name") {
  CLI::App app;
  std::string value;
  bool flag = false;
  CHECK(CompletionKindOf(*app.add_option("INVENTORY", value)) == CompletionKind::kInventory);
  CHECK(CompletionKindOf(*app.add_option("--limit", value)->type_name("PATTERN")) == CompletionKind::kNames);
  CHECK(CompletionKindOf(*app.add_option("--host", value)->type_name("HOST")) == CompletionKind::kNames);
  CHECK(CompletionKindOf(*app.add_option("--state", value)->type_name("DIR")) == CompletionKind::kDirectory);
  CHECK(CompletionKindOf(*app.add_option("--reason", value)) == CompletionKind::kOther);
  CHECK(CompletionKindOf(*app.add_flag("--json", flag)) == CompletionKind::kFlag);
  std::vector<std::string> list;
  CHECK(CompletionKindOf(*app.add_option("--tags", list)) == CompletionKind::kTags);
  CHECK(CompletionKindOf(*app.add_option("--skip-tags", list)) == CompletionKind::kTags);
  CHECK(CompletionKindOf(*app.add_option("--roles", list)) == CompletionKind::kRoles);
  CHECK(CompletionKindOf(*app.add_option("ROLE", value)) == CompletionKind::kRoles);
  CHECK(CompletionKindOf(*app.add_option("--checks", list)) == CompletionKind::kChecks);
}

}  // namespace clusterctl
