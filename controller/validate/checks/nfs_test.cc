// nfs.export's and nfs.mounts' one cluster phase on a FakeClusterRun: which
// client writes what where, who reads it back (the next client of the same
// export), the verdicts on a faithful server, a reader that could not run,
// and who is left out. The verdicts themselves: service_checks_test.cc.
#include <doctest/doctest.h>

#include "controller/validate/check_test_util.h"
#include "controller/validate/checks/spec_test_util.h"
#include "tests/unit/inventory_text.h"

namespace clusterctl {
namespace {

// The testbed's shape: node01 serves /home to node02-03 over ib0.
const char* kInventory = R"(cluster: testbed
vars:
  nfs_exports: [{path: /home, clients: [compute]}]
  nfs_mounts: [{export: /home}]
hosts:
  node01: {address: 10.0.0.11, interfaces: {ib0: 10.1.0.11/24}}
  node02: {address: 10.0.0.12, interfaces: {ib0: 10.1.0.12/24}}
  node03: {address: 10.0.0.13, interfaces: {ib0: 10.1.0.13/24}}
groups:
  nfs_server: {hosts: node01}
  compute: {hosts: [node02, node03]}
  nfs_clients: {children: [compute]}
)";

// A faithful NFS server: what a client writes (nfs-cp to a URL, or into a
// file through the mount) any client reads back; findmnt shows the mount.
struct NfsBench : testing::FakeClusterRun {
  std::map<std::string, std::string> stored;  // URL or path -> the token written there

  NfsBench() {
    inv = testing::InventoryFromText(kInventory);
    for (const char* host : {"node01", "node02", "node03"}) {
      Node(host, {{"nfs", {{"kernel_client", true}}}});
      probed.push_back({host, true, true, ""});
    }
    answer = [this](const HostCommand& c) {
      ToolOutput out;
      if (c.argv.front() == "findmnt") out.out = "10.1.0.11:/home nfs4\n";
      if (c.argv.front() == "sh") stored[c.argv.back()] = c.argv[4];  // sh -c SCRIPT sh TOKEN URL-or-PATH
      if (c.argv.front() == "nfs-cat" || c.argv.front() == "cat") out.out = stored[c.argv.back()] + "\n";
      return out;
    };
  }
  const CheckResult& Of(const std::string& check, const std::string& host) {
    for (const CheckResult& r : results) {
      if (r.check == check && r.subject == host) return r;
    }
    FAIL("no " << check << " result for " << host);
    return results.front();
  }
};

TEST_CASE("nfs: each client writes through its export and its mount; the next client reads both back") {
  NfsBench run;
  run.Phase("nfs.export");
  CHECK(run.Of("nfs.export", "node01").outcome == CheckOutcome::kSkip);
  CHECK(run.Of("nfs.export", "node01").detail == "node01 has no nfs_mounts or nfs_external_mounts");
  CHECK(run.Of("nfs.mounts", "node01").outcome == CheckOutcome::kSkip);
  for (const char* host : {"node02", "node03"}) {
    CAPTURE(host);
    CHECK_MESSAGE(run.Of("nfs.export", host).outcome == CheckOutcome::kPass, run.Of("nfs.export", host).detail);
    CHECK_MESSAGE(run.Of("nfs.mounts", host).outcome == CheckOutcome::kPass, run.Of("nfs.mounts", host).detail);
  }
  CHECK(run.Of("nfs.export", "node02").detail.find(", read back on node03") != std::string::npos);
  CHECK(run.Of("nfs.export", "node03").detail.find(", read back on node02") != std::string::npos);
  // Writes first (findmnt, nfs-cp, through the mount), then the reads, each on the next client.
  REQUIRE(run.ran.size() == 10);
  CHECK(run.ran[0].host == "node02");
  CHECK(run.ran[0].argv == Argv{"findmnt", "-n", "-o", "SOURCE,FSTYPE", "--mountpoint", "/home"});
  CHECK(run.ran[1].argv.back().rfind("nfs://10.1.0.11/home/.clusterctl-validate/node02-", 0) == 0);
  CHECK(run.ran[2].argv.back() == "/home/.clusterctl-validate/node02.mount");
  CHECK(run.ran[6].host == "node03");
  CHECK(run.ran[6].argv == Argv{"nfs-cat", run.ran[1].argv.back()});
  CHECK(run.ran[7].host == "node03");
  CHECK(run.ran[7].argv == Argv{"cat", "/home/.clusterctl-validate/node02.mount"});
}

TEST_CASE("nfs: bytes that do not come back, a reader that could not run, a mount from elsewhere") {
  NfsBench run;
  SUBCASE("node03 reads other bytes through the mount: node02's nfs.mounts fails naming it") {
    auto faithful = run.answer;
    run.answer = [faithful](const HostCommand& c) {
      ToolOutput out = faithful(c);
      if (c.argv.front() == "cat") out.out = "stale\n";
      return out;
    };
    run.Phase("nfs.export");
    CHECK(run.Of("nfs.mounts", "node02").outcome == CheckOutcome::kFail);
    CHECK(run.Of("nfs.mounts", "node02").detail == "node03 did not read back /home/.clusterctl-validate/node02.mount");
    CHECK(run.Of("nfs.export", "node02").outcome == CheckOutcome::kPass);
  }
  SUBCASE("node03's reads did not run: node02's export fails, saying why") {
    struct Lost : NfsBench {
      std::vector<Result<ToolOutput>> RunCommands(const std::vector<HostCommand>& commands) override {
        std::vector<Result<ToolOutput>> outputs = NfsBench::RunCommands(commands);
        for (size_t i = 0; i < commands.size(); ++i) {
          if (commands[i].host == "node03" && commands[i].argv.front() == "nfs-cat") {
            outputs[i] = Status::Unavailable("not run: node03 could not be reached (lost)");
          }
        }
        return outputs;
      }
    } lost;
    lost.Phase("nfs.export");
    const CheckResult& r = lost.Of("nfs.export", "node02");
    CHECK(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail.find("node03 cannot read back nfs://10.1.0.11/home/") != std::string::npos);
    CHECK(testing::EvidenceHas(r, "not run: node03 could not be reached (lost)"));
  }
  SUBCASE("a mount from another server") {
    auto faithful = run.answer;
    run.answer = [faithful](const HostCommand& c) {
      ToolOutput out = faithful(c);
      if (c.argv.front() == "findmnt" && c.host == "node03") out.out = "10.9.9.9:/home nfs4\n";
      return out;
    };
    run.Phase("nfs.export");
    CHECK(run.Of("nfs.mounts", "node03").detail == "/home from 10.9.9.9:/home, not 10.1.0.11:/home");
  }
}

TEST_CASE("nfs: one phase judges both checks; unreachable clients and wrong settings") {
  SUBCASE("nfs.mounts' phase runs nothing when nfs.export is reported: its phase judged both") {
    NfsBench run;
    CHECK(run.Phase("nfs.mounts").empty());
    CHECK(run.ran.empty());
    NfsBench alone;
    alone.unreported = {"nfs.export"};
    alone.Phase("nfs.mounts");
    CHECK(alone.Of("nfs.mounts", "node02").outcome == CheckOutcome::kPass);
    for (const CheckResult& r : alone.results) CHECK(r.check == "nfs.mounts");
  }
  SUBCASE("an unreachable client gets no result here and reads nothing back") {
    NfsBench run;
    run.probed[2] = {"node03", true, false, "ssh: connection refused"};
    run.Phase("nfs.export");
    for (const CheckResult& r : run.results) CHECK(r.subject != "node03");
    CHECK(run.Of("nfs.export", "node02").detail.find("no other client to read it back") != std::string::npos);
  }
  SUBCASE("the inventory's NFS settings are wrong: both fail on every reached node, naming why") {
    NfsBench run;
    std::string wrong = kInventory;
    wrong.replace(wrong.find("nfs_mounts: [{export: /home}]"), 29, "nfs_mounts: [{export: /scratch}]");  // not exported
    run.inv = testing::InventoryFromText(wrong);
    run.Phase("nfs.export");
    REQUIRE(run.results.size() == 6);
    CHECK(run.results[0].outcome == CheckOutcome::kFail);
    CHECK(run.results[0].detail.find("not checked: the inventory's NFS settings: ") == 0);
    CHECK(run.ran.empty());
  }
}

}  // namespace
}  // namespace clusterctl
