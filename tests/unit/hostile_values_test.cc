// Hostile values pushed through every path from the inventory, host names,
// variables, facts and node output to a shell, a generated file, SQL, the
// state store and JSON output (docs/security.md lists the paths). Each row
// of the table goes through each path; each path either refuses it with a
// message or carries it intact as data, never as syntax.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "agent/exec/run_command.h"
#include "agent/protocol/messages.h"
#include "common/json_text.h"
#include "common/shell_quote.h"
#include "common/strings.h"
#include "controller/catalog/role.h"
#include "controller/catalog/template.h"
#include "controller/catalog/variable_check.h"
#include "controller/state/state_store.h"
#include "controller/state/test_util.h"
#include "inventory/address.h"
#include "inventory/connection.h"
#include "inventory/loader.h"
#include "tests/unit/test_paths.h"

namespace clusterctl {
namespace {

struct Hostile {
  const char* what;
  std::string value;
};

const std::vector<Hostile>& HostileValues() {
  static const std::vector<Hostile> values = {
      {"single quotes", "it's 'quoted'"},
      {"double quotes", "say \"hi\""},
      {"command substitution", "$(touch /tmp/clusterctl-pwned)"},
      {"backticks", "`touch /tmp/clusterctl-pwned`"},
      {"a newline", "1024\nPartitionName=evil Nodes=ALL"},
      {"a carriage return", "a\rb"},
      {"a leading dash", "-rf"},
      {"a NUL byte", std::string("a\0b", 3)},
      {"SQL", "x'; DROP TABLE runs; --"},
      {"a very long string", std::string(100000, 'x')},
      {"non-UTF-8", "caf\xe9 \xff\xfe"},
      {"shell metacharacters", "a;b|c&d>e<f"},
      {"passwd's field separator", "x:0:0:root:/root:/bin/sh"},
      {"a directory every user may write", "/tmp"},
      {"below one, spelled around", "/dev/shm//./metrics"},
  };
  return values;
}

bool HasControl(const std::string& s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t') return true;
  }
  return false;
}

bool PrintableAscii(const std::string& s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) return false;
  }
  return true;
}

bool Has(const std::string& s, const char* any_of) { return s.find_first_of(any_of) != std::string::npos; }

// A place in the inventory where a value reaches /etc/passwd (through the
// directory or useradd), sacctmgr, or the directory root's textfile metrics
// land in, and the rule the value must follow there, stated on its own.
struct Placement {
  const char* what;
  std::string (*yaml)(const std::string& quoted);  // the vars: entry, on one line
  bool (*acceptable)(const std::string& value);
};

bool AbsolutePathOf(const std::string& v, const char* extra) {
  if (v.empty() || v.front() != '/' || !IsAlnumOr(v, extra)) return false;
  return ("/" + v + "/").find("/../") == std::string::npos;
}

const std::vector<Placement>& Placements() {
  static const std::vector<Placement> placements = {
      {"a directory user's gecos",
       [](const std::string& q) { return "directory_users: [{name: carol, uid: 5001, gid: 5000, gecos: " + q + "}]"; },
       // passwd: one printable line without ':'; LDIF (RFC 2849, 4514): no DN escapes, no leading space, ':' or '<'
       [](const std::string& v) {
         return PrintableAscii(v) && !Has(v, ":\\\"+;<>#") && (v.empty() || (v.front() != ' ' && v.back() != ' '));
       }},
      {"a directory user's shell",
       [](const std::string& q) { return "directory_users: [{name: carol, uid: 5001, gid: 5000, shell: " + q + "}]"; },
       [](const std::string& v) { return AbsolutePathOf(v, "._/@%+=,-"); }},
      {"an admin user's shell", [](const std::string& q) { return "admin_users: [{name: carol, shell: " + q + "}]"; },
       [](const std::string& v) { return AbsolutePathOf(v, "._/@%+=,-"); }},
      {"a Slurm account's description",
       [](const std::string& q) { return "slurm_accounts: [{name: physics, description: " + q + "}]"; },
       [](const std::string& v) { return PrintableAscii(v) && !Has(v, "'\""); }},
      {"the textfile collector's directory", [](const std::string& q) { return "node_exporter_textfile_dir: " + q; },
       [](const std::string& v) {
         return AbsolutePathOf(v, "._/@%+=,:-") && v.rfind("/tmp", 0) != 0 && v.rfind("/dev/shm", 0) != 0;
       }},
  };
  return placements;
}

// `value` as a YAML double-quoted scalar (escapes for what YAML cannot hold raw).
std::string YamlQuoted(const std::string& value) {
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') out += std::string("\\") + c;
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\0') out += "\\0";
    else out += c;
  }
  return out + "\"";
}

bool SafeShellWord(const std::string& s) { return Template::UnsafeFor(Template::Format::kShell, s).empty(); }

}  // namespace

TEST_CASE("hostile values: templates refuse what would break out of the file, keep the rest as text") {
  for (const Hostile& h : HostileValues()) {
    CAPTURE(h.what);
    const nlohmann::json context = {{"v", h.value}};
    for (Template::Format format : {Template::Format::kLines, Template::Format::kSql, Template::Format::kShell}) {
      Diagnostics d;
      auto t = Template::Parse("key={{v}}\n", "t", d, 1, 1, format);
      REQUIRE(t);
      const std::string out = t->Render(context, d);
      if (d.has_errors()) {
        CHECK(out == "key=\n");  // refused: nothing of it is written
      } else {
        CHECK(out == "key=" + h.value + "\n");  // accepted: as it is, on its one line
        CHECK_FALSE(HasControl(h.value));
        if (format == Template::Format::kSql) CHECK(h.value.find_first_of("'\";- ") == std::string::npos);
        if (format == Template::Format::kShell) CHECK(SafeShellWord(h.value));
      }
    }
  }
}

TEST_CASE("hostile values: an argument vector reaches the program as one argument each, never a shell") {
  for (const Hostile& h : HostileValues()) {
    if (h.value.find('\0') != std::string::npos) continue;  // not representable in an argv (execve)
    CAPTURE(h.what);
    // Through the protocol's codec, as the controller sends it ...
    agent_protocol::ExecRequest exec;
    exec.argv = {"printf", "%s", h.value};
    agent_protocol::FrameDecoder decoder(false);
    const agent_protocol::Frame frame = agent_protocol::EncodeRequest(1, exec);
    decoder.Feed(agent_protocol::EncodeFrame(frame.header, frame.body));
    auto decoded = decoder.Next();
    REQUIRE(decoded);
    auto in = agent_protocol::DecodeRequest(*decoded);
    REQUIRE(in.ok());
    const auto& argv = std::get<agent_protocol::ExecRequest>(in->request).argv;
    // ... and run by the agent: printed back literally (non-UTF-8 crosses the
    // JSON header as U+FFFD, so only valid text compares byte for byte).
    agent::CommandSpec spec;
    spec.argv = argv;
    agent::CommandResult result = agent::RunCommand(spec);
    CHECK(result.exit_code == 0);
    if (!FindInvalidUtf8(h.value)) CHECK(result.stdout_data == h.value);
  }
  CHECK_FALSE(std::filesystem::exists("/tmp/clusterctl-pwned"));
}

TEST_CASE("hostile values: the one shell string clusterctl builds quotes every word") {
  for (const Hostile& h : HostileValues()) {
    if (h.value.find('\0') != std::string::npos) continue;
    CAPTURE(h.what);
    agent::CommandSpec spec;
    spec.argv = {"sh", "-c", "printf %s " + ShellQuote(h.value)};
    agent::CommandResult result = agent::RunCommand(spec);
    CHECK(result.stdout_data == h.value);
  }
  CHECK_FALSE(std::filesystem::exists("/tmp/clusterctl-pwned"));
}

TEST_CASE("hostile values: host names, addresses and users are refused at load, not carried") {
  for (const Hostile& h : HostileValues()) {
    CAPTURE(h.what);
    if (h.value == std::string(100000, 'x')) continue;  // long but harmless letters: length is checked elsewhere
    CHECK(CheckHostName(h.value).has_value());
    CHECK(CheckHostAddress(h.value).has_value());
    CHECK_FALSE(IsUserName(h.value));
  }
}

TEST_CASE("hostile values: inventory check refuses, at file:line, what passwd, sacctmgr or a shared directory would not take") {
  Diagnostics load;
  std::optional<Catalog> catalog =
      Catalog::Load({{testing::SourceDir() + "/roles"}, {testing::SourceDir() + "/templates"}}, load);
  REQUIRE(catalog);
  for (const Placement& place : Placements()) {
    for (const Hostile& h : HostileValues()) {
      const std::string where = std::string(place.what) + ", " + h.what;
      CAPTURE(where);
      testing::TempDir dir;
      std::ofstream(dir.path() + "/inventory.yaml")
          << "cluster: lab\nconnection: {user: root}\nvars:\n  " << place.yaml(YamlQuoted(h.value))  // line 4
          << "\nhosts:\n  head: {address: 10.0.0.1}\ngroups:\n  controller: {hosts: [head]}\n";
      Diagnostics diagnostics;
      std::optional<Inventory> inventory = LoadInventory(dir.path() + "/inventory.yaml", diagnostics);
      if (inventory) CheckInventoryVariables(*catalog, *inventory, diagnostics);
      const std::string said = diagnostics.ToString();
      CAPTURE(said);
      if (place.acceptable(h.value)) {
        CHECK_FALSE(diagnostics.has_errors());
      } else {
        CHECK(diagnostics.has_errors());
        CHECK(said.find("inventory.yaml:4") != std::string::npos);  // where the value is written
      }
    }
  }
}

TEST_CASE("hostile values: the state store keeps them as data; JSON output never aborts on them") {
  testing::TempDir dir;
  FakeClock clock;
  SystemFilesystemProbe probe;
  auto store = StateStore::OpenForWriting(StatePaths{dir.path()}, {&clock, &probe, "test"});
  REQUIRE(store.ok());
  auto run = (*store)->BeginRun("deploy", "test");
  REQUIRE(run.ok());
  for (const Hostile& h : HostileValues()) {
    CAPTURE(h.what);
    REQUIRE((*store)->RecordEvent(*run, std::string("node01"), "error", "failed", h.value).ok());
    nlohmann::json j = {{"message", h.value}};
    CHECK_NOTHROW((void)JsonText(j));
    CHECK_FALSE(FindInvalidUtf8(JsonText(j)).has_value());
  }
  auto events = (*store)->EventsOfRun(*run);
  REQUIRE(events.ok());
  CHECK(events->size() == HostileValues().size());
  CHECK((*store)->ListRuns(10).ok());  // the runs table is still there
}

}  // namespace clusterctl
