// Every shell script the built-in roles put on a node, checked by
// shellcheck (Debian's shellcheck: scripts/install-deps.sh): the shell
// templates (templates/*.sh.mustache) rendered with test values, and each
// `sh -c` script written inline in roles/*.yaml. A finding fails the test;
// an exclusion is a `# shellcheck disable=SCxxxx  # reason` comment in the
// script itself, so the reason stays beside the line it excuses.
//
// Values never become shell text: a shell template's renderer refuses any
// value that is not one plain word (quotes, spaces, $(...), newlines), and a
// role passes values to `sh -c` as positional arguments, never inside the
// script. A script longer than one line is a template, not inline text in a
// role (docs/roles.md; issue 48).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "agent/exec/run_command.h"
#include "common/diagnostics.h"
#include "common/yaml_doc.h"
#include "controller/catalog/template.h"
#include "tests/unit/test_paths.h"

namespace clusterctl {
namespace {

namespace fs = std::filesystem;

// A word every shell slot accepts, with every character other than letters
// and digits that the shell format allows: a value as odd as a valid one gets.
const char* kOddWord = "x_./:@%+=,-9";

// Values that would change a script if they reached it as text.
const std::vector<std::string> kHostileValues = {
    "two words", "$(id)", "`id`", "${HOME}", "it's", "say \"hi\"", "a;reboot", "a|b", "a&b", "a>b",
    "line\nbreak", "*", "~root", "back\\slash", "-rf", "", "tab\there", "#comment"};

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// shellcheck's findings for `script` as POSIX sh ("" when none), each line
// prefixed with `what`. Fails the test when shellcheck is not installed.
std::string ShellcheckFindings(const std::string& script, const std::string& what) {
  agent::CommandSpec spec;
  spec.argv = {"shellcheck", "--shell=sh", "--format=gcc", "-"};
  spec.stdin_data = script;
  agent::CommandResult result = agent::RunCommand(spec);
  REQUIRE_MESSAGE(result.started, "shellcheck (Debian's shellcheck) is needed: scripts/install-deps.sh; "
                                      << result.stderr_data);
  if (result.exit_code == 0) return "";
  std::string findings;
  std::istringstream lines(result.stdout_data + result.stderr_data);
  for (std::string line; std::getline(lines, line);) findings += what + ": " + line + "\n";
  return findings.empty() ? what + ": shellcheck exited " + std::to_string(result.exit_code) + "\n" : findings;
}

// The shell in a shell template's output: the whole file for a script (an
// installed one starts with #!; one passed to `sh -c` has none); for an
// ifupdown stanza (ipoib-ifupdown.sh), the hook commands ifupdown hands to
// /bin/sh, one script each.
std::vector<std::string> ShellOf(const std::string& rendered) {
  if (rendered.find("\niface ") == std::string::npos) return {rendered};
  std::vector<std::string> scripts;
  std::istringstream lines(rendered);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string hook;
    words >> hook;
    for (const char* name : {"pre-up", "up", "post-up", "pre-down", "down", "post-down"}) {
      if (hook == name) scripts.push_back(line.substr(line.find(hook) + hook.size() + 1) + "\n");
    }
  }
  return scripts;
}

// Test contexts of the shell templates that insert values, each branch of
// their sections once; a template missing here renders with no values, so a
// new template's tags fail the test until it gets contexts of its own.
std::map<std::string, std::vector<nlohmann::json>> TemplateContexts() {
  const nlohmann::json controller = {{"controller", {{"name", "head-01"}}}};
  nlohmann::json ipoib_full = {{"host", {{"name", "gpu-01"}}},
                               {"item",
                                {{"ifname", "ib0.8001"},
                                 {"address", "10.1.0.11"},
                                 {"prefix_length", 24},
                                 {"pkey", "0x8001"},
                                 {"parent", "ib0"},
                                 {"infiniband", true}}},
                               {"ipoib_default_prefix", 16},
                               {"ipoib_mtu", 2044},
                               {"ipoib_mode", "datagram"}};
  nlohmann::json ipoib_plain = ipoib_full;
  ipoib_plain["item"] = {{"ifname", "ib1"}, {"address", "10.2.0.11"}, {"prefix_length", nullptr},
                         {"pkey", nullptr}, {"parent", nullptr}, {"infiniband", true}};
  ipoib_plain["ipoib_mtu"] = nullptr;
  return {
      {"clusterctl-image-bundle.sh.mustache",
       {{{"containers_registry", kOddWord}, {"registry_mode", true}, {"cluster", controller}, {"registry_port", 5000}},
        {{"containers_registry", nullptr}, {"registry_mode", true}, {"cluster", controller}, {"registry_port", 5000}},
        {{"containers_registry", nullptr}, {"registry_mode", false}, {"cluster", controller}, {"registry_port", 5000}}}},
      {"clusterctl-modules.sh.mustache", {{{"mpi_multiarch", kOddWord}}}},
      {"clusterctl-nccl-tests.sh.mustache", {{{"mpi_multiarch", kOddWord}}}},
      {"clusterctl-oci-runtime.sh.mustache", {{{"containers_runtime", std::string("/opt/") + kOddWord + "/crun"}}}},
      {"ipoib-ifupdown.sh.mustache", {ipoib_full, ipoib_plain}},
      {"nvidia-driver-state.sh.mustache", {{{"nvidia_driver_distro", "debian"}}, {{"nvidia_driver_distro", "ubuntu"}}}},
  };
}

struct ShellTemplate {
  std::string name;
  Template parsed;
};

std::vector<ShellTemplate> ShellTemplates() {
  std::vector<ShellTemplate> out;
  for (const auto& entry : fs::directory_iterator(testing::SourceDir() + "/templates")) {
    const std::string name = entry.path().filename().string();
    if (Template::FormatOf(name) != FileFormat::kShell) continue;
    Diagnostics diagnostics;
    auto parsed = Template::Parse(ReadText(entry.path()), name, diagnostics, 1, 1, FileFormat::kShell);
    REQUIRE_MESSAGE(parsed, diagnostics.ToString());
    out.push_back({name, std::move(*parsed)});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

// An inline `sh -c SCRIPT [NAME ARGS...]` argument vector in a role.
struct InlineScript {
  std::string where;  // roles/NAME.yaml:LINE
  std::string script;
};

void CollectInlineScripts(const YamlNode& node, std::vector<InlineScript>& out) {
  if (node.kind == YamlNode::Kind::kSequence) {
    const auto& items = node.items;
    if (items.size() >= 3 && items[0].kind == YamlNode::Kind::kScalar && items[1].kind == YamlNode::Kind::kScalar &&
        (items[0].scalar == "sh" || items[0].scalar == "/bin/sh" || items[0].scalar == "bash") &&
        items[1].scalar == "-c") {
      const SourceLocation& at = items[2].location;
      out.push_back({fs::path(at.file).filename().string() + ":" + std::to_string(at.line), items[2].scalar});
    }
    for (const YamlNode& item : items) CollectInlineScripts(item, out);
  }
  if (node.kind == YamlNode::Kind::kMap) {
    for (const auto& [key, value] : node.entries) CollectInlineScripts(value, out);
  }
}

std::vector<InlineScript> InlineScripts() {
  std::vector<InlineScript> out;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(testing::SourceDir() + "/roles")) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    Diagnostics diagnostics;
    auto root = ParseYaml(ReadText(file), "roles/" + file.filename().string(), YamlLimits{}, diagnostics);
    REQUIRE_MESSAGE(root, diagnostics.ToString());
    CollectInlineScripts(*root, out);
  }
  return out;
}

bool IsMultiLine(const std::string& script) {
  const size_t end = script.find_last_not_of("\n");
  return end != std::string::npos && script.find('\n') < end;
}

TEST_CASE("shell templates: no slot takes a value that is not one plain word") {
  const std::vector<ShellTemplate> templates = ShellTemplates();
  REQUIRE(templates.size() >= 12);
  for (const ShellTemplate& t : templates) {
    for (const Template::Slot& slot : t.parsed.CheckedSlots()) {
      for (const std::string& value : kHostileValues) {
        CHECK_MESSAGE(!Template::UnsafeFor(FileFormat::kShell, value, slot.place).empty(),
                      t.name << ": {{" << slot.name << "}} would insert '" << value << "'");
      }
      CHECK_MESSAGE(Template::UnsafeFor(FileFormat::kShell, kOddWord, slot.place).empty(), t.name << ": " << slot.name);
    }
  }
}

TEST_CASE("shell templates: rendering refuses a hostile value in every tag, naming the template") {
  for (const auto& [name, contexts] : TemplateContexts()) {
    Diagnostics parse;
    auto parsed = Template::Parse(ReadText(testing::SourceDir() + "/templates/" + name), name, parse, 1, 1,
                                  FileFormat::kShell);
    REQUIRE_MESSAGE(parsed, parse.ToString());
    // Each value a tag inserts (booleans and nulls only switch sections),
    // made hostile one at a time: some test context renders it, and refuses.
    std::map<std::string, bool> refused;  // JSON pointer -> by some context
    for (const nlohmann::json& context : contexts) {
      const nlohmann::json flat = context.flatten();
      for (const auto& [pointer, value] : flat.items()) {
        if (value.is_boolean() || value.is_null()) continue;
        for (const char* hostile : {"$(reboot)", "a b", "x\ny"}) {
          nlohmann::json changed = flat;
          changed[pointer] = hostile;
          Diagnostics diagnostics;
          parsed->Render(changed.unflatten(), diagnostics);
          refused[pointer] |= diagnostics.has_errors() && diagnostics.ToString().find(name) != std::string::npos;
        }
      }
    }
    for (const auto& [pointer, ok] : refused) CHECK_MESSAGE(ok, name << " rendered a hostile " << pointer);
  }
}

TEST_CASE("shell templates: each, rendered with test values, passes shellcheck") {
  const auto contexts = TemplateContexts();
  std::string findings;
  int scripts = 0;
  for (const ShellTemplate& t : ShellTemplates()) {
    auto it = contexts.find(t.name);
    const std::vector<nlohmann::json> variants = it != contexts.end() ? it->second : std::vector{nlohmann::json::object()};
    for (size_t v = 0; v < variants.size(); ++v) {
      Diagnostics diagnostics;
      const std::string rendered = t.parsed.Render(variants[v], diagnostics);
      REQUIRE_MESSAGE(!diagnostics.has_errors(), t.name << " needs test values (TemplateContexts): "
                                                        << diagnostics.ToString());
      const std::vector<std::string> shell = ShellOf(rendered);
      CHECK_MESSAGE(!shell.empty(), t.name << ": no shell found in\n" << rendered);
      for (const std::string& script : shell) {
        ++scripts;
        findings += ShellcheckFindings(script, t.name + " (test values " + std::to_string(v + 1) + ")");
      }
    }
  }
  CHECK(scripts >= 30);
  CHECK_MESSAGE(findings.empty(), findings);
}

TEST_CASE("roles: every inline sh -c script passes shellcheck and takes values only as arguments") {
  const std::vector<InlineScript> scripts = InlineScripts();
  REQUIRE(scripts.size() >= 30);
  std::string findings;
  for (const InlineScript& s : scripts) {
    CHECK_MESSAGE(s.script.find("{{") == std::string::npos,
                  s.where << ": a value inside the script; pass it as an argument ([sh, -c, '... \"$1\"', sh, \"{{value}}\"])");
    findings += ShellcheckFindings(s.script, s.where);
  }
  CHECK_MESSAGE(findings.empty(), findings);
}

TEST_CASE("roles: no multi-line sh -c script (a script longer than one line is a template)") {
  std::string multi_line;
  for (const InlineScript& s : InlineScripts()) {
    if (IsMultiLine(s.script)) multi_line += " " + s.where;
  }
  CHECK_MESSAGE(multi_line.empty(), "multi-line sh -c scripts (make each a templates/NAME.sh.mustache, "
                                    "named as {template: NAME.sh.mustache}):" << multi_line);
}

}  // namespace
}  // namespace clusterctl
