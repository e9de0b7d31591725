// Idempotence tests of the resources that need no package manager or init
// system: check reports a change, apply makes it, the next check reports
// nothing and runs no mutating command.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "agent/resources/node_files.h"
#include "agent/resources/resource.h"
#include "common/json_text.h"
#include "controller/state/test_util.h"
#include "common/sha256.h"

namespace clusterctl::agent {
namespace {

ResourceOutcome Run(const std::string& kind, nlohmann::json params, bool apply, ResourceHost& host,
                    const std::string& body = "") {
  ResourceRequest request{kind, std::move(params), body, apply};
  return RunResource(request, host);
}

// check -> changed; apply -> changed; check -> unchanged, no mutating command.
void CheckIdempotence(const std::string& kind, const nlohmann::json& params, const std::string& body = "") {
  CAPTURE(kind);
  CAPTURE(JsonText(params));
  ResourceHost first;
  ResourceOutcome check = Run(kind, params, false, first, body);
  INFO(check.error);
  REQUIRE_FALSE(check.failed);
  CHECK(check.changed);
  CHECK_FALSE(first.RanMutatingCommand());
  ResourceHost second;
  ResourceOutcome apply = Run(kind, params, true, second, body);
  INFO(apply.error);
  REQUIRE_FALSE(apply.failed);
  CHECK(apply.changed);
  CHECK(apply.differences == check.differences);
  ResourceHost third;
  ResourceOutcome again = Run(kind, params, false, third, body);
  REQUIRE_FALSE(again.failed);
  CHECK_FALSE(again.changed);
  CHECK(again.differences.empty());
  CHECK_FALSE(third.RanMutatingCommand());
}

std::string Slurp(const std::string& path) { return ReadWholeFile(path).value_or("<missing>"); }

}  // namespace

TEST_CASE("file: create, then converge content and mode, keeping a backup") {
  testing::TempDir dir;
  const std::string path = dir.path() + "/chrony.conf";
  CheckIdempotence("file", {{"path", path}, {"mode", "0640"}}, "server ntp1\n");
  CHECK(Slurp(path) == "server ntp1\n");
  CHECK(StatPath(path).mode == 0640);

  ResourceHost host;
  ResourceOutcome plan = Run("file", {{"path", path}, {"mode", "0640"}}, false, host, "server ntp2\n");
  CHECK(plan.changed);
  CHECK(plan.diff.find("-server ntp1\n+server ntp2\n") != std::string::npos);
  CHECK(Slurp(path) == "server ntp1\n");  // check changed nothing
  ResourceOutcome applied = Run("file", {{"path", path}, {"mode", "0640"}}, true, host, "server ntp2\n");
  CHECK(applied.has_backup);
  CHECK(applied.backup == "server ntp1\n");
  CHECK(Slurp(path) == "server ntp2\n");
}

TEST_CASE("file: secrets show no diff and keep no backup") {
  testing::TempDir dir;
  const std::string path = dir.path() + "/munge.key";
  ResourceHost host;
  Run("file", {{"path", path}, {"mode", "0400"}, {"secret", true}}, true, host, "OLDSECRET");
  ResourceOutcome changed = Run("file", {{"path", path}, {"mode", "0400"}, {"secret", true}}, true, host, "NEWSECRET");
  CHECK(changed.changed);
  CHECK(changed.diff.empty());
  CHECK_FALSE(changed.has_backup);
  CHECK(changed.differences[0] == "content differs (secret: not shown)");
}

TEST_CASE("file: a failing validate command keeps the old file") {
  testing::TempDir dir;
  const std::string path = dir.path() + "/sudoers";
  ResourceHost host;
  Run("file", {{"path", path}}, true, host, "good\n");
  ResourceOutcome bad = Run("file", {{"path", path}, {"validate", {"sh", "-c", "! grep -q bad %s"}}}, true, host, "bad\n");
  CHECK(bad.failed);
  CHECK(bad.error.find("validation of the new") == 0);
  CHECK(Slurp(path) == "good\n");
}

TEST_CASE("file: state absent removes the file idempotently") {
  testing::TempDir dir;
  const std::string path = dir.path() + "/old.conf";
  std::ofstream(path) << "x";
  CheckIdempotence("file", {{"path", path}, {"state", "absent"}});
  CHECK_FALSE(StatPath(path).exists);
}

TEST_CASE("directory and symlink") {
  testing::TempDir dir;
  CheckIdempotence("directory", {{"path", dir.path() + "/state"}, {"mode", "0700"}});
  CHECK(StatPath(dir.path() + "/state").mode == 0700);
  CheckIdempotence("symlink", {{"path", dir.path() + "/current"}, {"target", "/opt/cuda-12.2"}});
  CheckIdempotence("symlink", {{"path", dir.path() + "/current"}, {"target", "/opt/cuda-12.4"}});
  char buffer[256];
  ssize_t n = ::readlink((dir.path() + "/current").c_str(), buffer, sizeof buffer);
  CHECK(std::string(buffer, static_cast<size_t>(n)) == "/opt/cuda-12.4");
}

TEST_CASE("line: add, replace by regexp, remove") {
  testing::TempDir dir;
  const std::string path = dir.path() + "/sshd_config";
  std::ofstream(path) << "Port 22\n#PermitRootLogin yes\nUsePAM yes\n";
  CheckIdempotence("line", {{"path", path}, {"line", "PermitRootLogin prohibit-password"}, {"regexp", "^#?PermitRootLogin"}});
  CHECK(Slurp(path) == "Port 22\nPermitRootLogin prohibit-password\nUsePAM yes\n");
  CheckIdempotence("line", {{"path", path}, {"line", "MaxStartups 100"}});
  CHECK(Slurp(path) == "Port 22\nPermitRootLogin prohibit-password\nUsePAM yes\nMaxStartups 100\n");
  CheckIdempotence("line", {{"path", path}, {"line", "UsePAM yes"}, {"state", "absent"}});
  CHECK(Slurp(path) == "Port 22\nPermitRootLogin prohibit-password\nMaxStartups 100\n");
}

TEST_CASE("block: insert, update and remove between markers") {
  testing::TempDir dir;
  const std::string path = dir.path() + "/hosts";
  std::ofstream(path) << "127.0.0.1 localhost\n";
  CheckIdempotence("block", {{"path", path}, {"block", "10.0.0.1 head\n10.0.0.2 gpu01\n"}});
  CHECK(Slurp(path) ==
        "127.0.0.1 localhost\n# BEGIN CLUSTERCTL MANAGED BLOCK\n10.0.0.1 head\n10.0.0.2 gpu01\n# END CLUSTERCTL MANAGED BLOCK\n");
  CheckIdempotence("block", {{"path", path}, {"block", "10.0.0.1 head\n"}});
  CHECK(Slurp(path) == "127.0.0.1 localhost\n# BEGIN CLUSTERCTL MANAGED BLOCK\n10.0.0.1 head\n# END CLUSTERCTL MANAGED BLOCK\n");
  CheckIdempotence("block", {{"path", path}, {"state", "absent"}});
  CHECK(Slurp(path) == "127.0.0.1 localhost\n");
}

TEST_CASE("command: guards make it idempotent, and the guard query is not a mutation") {
  testing::TempDir dir;
  const std::string marker = dir.path() + "/done";
  CheckIdempotence("command", {{"argv", {"touch", marker}}, {"creates", marker}});
  CheckIdempotence("command", {{"argv", {"sh", "-c", "echo x > " + dir.path() + "/f"}},
                               {"unless", {"test", "-s", dir.path() + "/f"}}});
  ResourceHost host;
  ResourceOutcome failing = Run("command", {{"argv", {"sh", "-c", "echo boom >&2; exit 4"}}}, true, host);
  CHECK(failing.failed);
  CHECK(failing.error == "sh exited with status 4");
  CHECK(failing.output == "boom\n");
  // A rendered number where a string or a list of strings is declared (the
  // role wrote "{{generation}}"): used as its text, not an internal error.
  CheckIdempotence("command", {{"argv", {"sh", "-c", "echo \"$1\" > \"$2\"", "sh", 3, dir.path() + "/gen"}},
                               {"unless", {"grep", "-qx", 3, dir.path() + "/gen"}}});
  ResourceHost secret;
  ResourceOutcome hidden =
      Run("command", {{"argv", {"sh", "-c", "echo password123; exit 1"}}, {"secret", true}}, true, secret);
  CHECK(hidden.failed);
  CHECK(hidden.output == "(output not shown: the step is secret)");
}

TEST_CASE("assert: holds silently, fails with its message and the probe's words in plan and deploy alike") {
  for (bool apply : {false, true}) {
    CAPTURE(apply);
    ResourceHost holds;
    ResourceOutcome ok = Run("assert",
                             {{"argv", {"sh", "-c", "test \"$1\" = debian12", "sh", "debian12"}},
                              {"message", "bundle for another distribution"}},
                             apply, holds);
    CHECK_FALSE(ok.failed);
    CHECK_FALSE(ok.changed);
    ResourceHost refuses;
    ResourceOutcome refused = Run("assert",
                                  {{"argv", {"sh", "-c", "echo \"built for $1; this node runs debian12\" >&2; exit 1",
                                             "sh", "ubuntu22.04"}},
                                   {"message", "bundle for another distribution"}},
                                  apply, refuses);
    CHECK(refused.failed);
    CHECK_FALSE(refused.changed);
    CHECK(refused.error == "bundle for another distribution: built for ubuntu22.04; this node runs debian12");
    CHECK_FALSE(refuses.RanMutatingCommand());
  }
}

TEST_CASE("copy: resumes a partial upload and verifies the checksum") {
  testing::TempDir dir;
  const std::string path = dir.path() + "/driver.run";
  const std::string content(300'000, 'z');
  nlohmann::json params = {{"path", path}, {"sha256", Sha256Hex(content)}, {"size", content.size()}, {"mode", "0755"}};
  ResourceHost host;
  ResourceOutcome first = Run("copy", params, true, host);
  CHECK(first.changed);
  REQUIRE(first.upload.has_value());
  CHECK(first.upload->partial_size == 0);
  REQUIRE(WriteUploadChunk(path, 0, content.substr(0, 100'000)).ok());
  // An interrupted transfer: the next attempt learns what is there and resumes.
  ResourceOutcome resumed = Run("copy", params, true, host);
  REQUIRE(resumed.upload.has_value());
  CHECK(resumed.upload->partial_size == 100'000);
  CHECK(resumed.upload->partial_sha256 == Sha256Hex(content.substr(0, 100'000)));
  REQUIRE(WriteUploadChunk(path, 100'000, content.substr(100'000)).ok());
  ResourceOutcome installed = Run("copy", params, true, host);
  CHECK_FALSE(installed.failed);
  CHECK_FALSE(installed.upload.has_value());
  CHECK(Sha256Hex(Slurp(path)) == Sha256Hex(content));
  CHECK(StatPath(path).mode == 0755);
  ResourceHost quiet;
  CHECK_FALSE(Run("copy", params, false, quiet).changed);
}

TEST_CASE("unknown kinds and bad parameters fail clearly") {
  ResourceHost host;
  CHECK(Run("frobnicate", {}, false, host).error == "unknown resource kind 'frobnicate'");
  CHECK(Run("file", {{"pth", "/x"}}, false, host).error.find("unknown parameter 'pth' for file (did you mean 'path'?)") == 0);
  CHECK(Run("service", {{"name", "x"}, {"state", "runing"}}, false, host).error.find("did you mean 'running'") !=
        std::string::npos);
}

}  // namespace clusterctl::agent

namespace clusterctl::agent {
namespace {

TEST_CASE("a repository whose uri, suite, component or keyring is not one word is refused before any file is written") {
  for (const nlohmann::json& params : {
           nlohmann::json{{"name", "x"}, {"uri", "http://mirror.example/ ./\ndeb http://evil.example/"}},
           nlohmann::json{{"name", "x"}, {"uri", "[trusted=yes] http://evil.example/"}},
           nlohmann::json{{"name", "x"}, {"uri", "http://mirror.example/"}, {"suite", "bookworm main"}},
           nlohmann::json{{"name", "x"}, {"uri", "http://mirror.example/"}, {"components", {"main non-free"}}},
           nlohmann::json{{"name", "x"}, {"uri", "http://mirror.example/"}, {"keyring", "/k.gpg] [trusted=yes"}}}) {
    CAPTURE(JsonText(params));
    ResourceHost host;
    ResourceOutcome outcome = Run("repository", params, true, host);
    CHECK(outcome.failed);
    CHECK(outcome.error.find("is not a single word") != std::string::npos);
    CHECK_FALSE(host.RanMutatingCommand());
  }
}

TEST_CASE("a repository name that is not a plain file name is refused before any file is written (issue 31)") {
  for (const char* name : {"x\ngpgcheck=0", "../x", "-x", ".x", "a b", ""}) {
    CAPTURE(name);
    ResourceHost host;
    ResourceOutcome outcome = Run("repository", {{"name", name}, {"uri", "http://mirror.example/"}}, false, host);
    CHECK(outcome.failed);
    CHECK(outcome.error.find("must be a plain file name") != std::string::npos);
    CHECK_FALSE(outcome.changed);
  }
}

TEST_CASE("a mount whose source, type or options is not one word of fstab is refused before fstab is read (issue 31)") {
  for (const nlohmann::json& params : {
           nlohmann::json{{"path", "/mnt/x"}, {"source", "server:/x /root none bind 0 0\n#"}, {"fstype", "nfs"}},
           nlohmann::json{{"path", "/mnt/x"}, {"source", "server:/x"}, {"fstype", "nfs rw"}},
           nlohmann::json{{"path", "/mnt/x"}, {"source", "server:/x"}, {"fstype", "nfs"}, {"options", "ro\tsuid"}},
           nlohmann::json{{"path", "/mnt/x"}, {"source", ""}, {"fstype", "nfs"}}}) {
    CAPTURE(JsonText(params));
    ResourceHost host;
    nlohmann::json present = params;
    present["state"] = "present";
    ResourceOutcome outcome = Run("mount", present, false, host);
    CHECK(outcome.failed);
    CHECK(outcome.error.find("is not one word of an fstab line") != std::string::npos);
    CHECK(outcome.diff.empty());
  }
}

}  // namespace
}  // namespace clusterctl::agent
