// storage.nfs_fio's cluster phase on a FakeClusterRun: one round per
// export, every node that mounts it writing then reading its one file
// through fio's nfs engine at nfs.export's URL, the readings judged among
// the nodes of the same export (a slow client named), and every node left
// without a reading: Debian 12's fio without the engine (its real answer,
// captured: "not applicable", never a pass), fio missing, a job's real
// error report, no answer from --enghelp, the deadline. Debian 13's fio
// answers --enghelp=nfs as captured on the testbed. fio's reports are
// real captures of Debian 12's fio 3.33 (--output-format=json) with one
// named edit each: bw_bytes set to the node's speed.
#include <doctest/doctest.h>

#include "common/json_text.h"
#include "controller/validate/checks/spec_test_util.h"
#include "tests/unit/fixture.h"
#include "tests/unit/inventory_text.h"

namespace clusterctl {
namespace {

// node01 serves /home to node02-04 over ib0 (the compute group mounts it);
// node04 also mounts a NAS outside the inventory.
std::string Inventory() {
  std::string text = "cluster: accept\nhosts:\n";
  for (const char* n : {"1", "2", "3", "4"}) {
    text += std::string("  node0") + n + ": {address: 10.0.0.2" + n + ", interfaces: {ib0: 10.1.0.2" + n + "/24}" +
            (std::string(n) == "4" ? ", vars: {nfs_external_mounts: [{server: 10.9.9.9, export: /proj, path: /proj}]}" : "") + "}\n";
  }
  return text + "groups:\n  nfs_server: {hosts: node01, vars: {nfs_exports: [{path: /home, clients: [compute]}]}}\n"
                "  compute: {hosts: [node02, node03, node04], vars: {nfs_mounts: [{export: /home}]}}\n"
                "  nfs_clients: {children: [compute]}\n";
}

const char* kHome = "10.1.0.21:/home";


// A real fio 3.33 report of `rw` (captured) with one edit: its bw_bytes set to `mbps`.
std::string Report(const std::string& rw, double mbps) {
  nlohmann::json doc = nlohmann::json::parse(testing::CapturedFixture("fio-output-json--3.33-Debian-12--seq-" + rw + "-1M-ext4--1.json"));
  doc["jobs"][0][rw]["bw_bytes"] = static_cast<long long>(mbps * 1e6);
  return JsonText(doc, 2);
}

std::string Option(const Argv& argv, const std::string& name) {
  for (const std::string& a : argv) {
    if (a.rfind(name + "=", 0) == 0) return a.substr(name.size() + 1);
  }
  return "";
}

struct NfsFioBench : testing::FakeClusterRun {
  std::map<std::string, double> write_mbps = {{"node02", 410}, {"node03", 395}, {"node04", 420}};
  NfsFioBench() {
    inv = testing::InventoryFromText(Inventory());
    for (const char* node : {"node01", "node02", "node03", "node04"}) {
      Node(node).outputs["fio installed"] = ToolOutput{};
      Node(node).outputs["fio --version"].out = "fio-3.39\n";
      Node(node).outputs["fio --enghelp=nfs"].out = testing::CapturedFixture("fio-enghelp-nfs--3.39-Debian-13--nfs-engine--stdout--1.txt");
      probed.push_back({node, true, true, ""});
    }
    answer = [this](const HostCommand& c) {
      ToolOutput out;
      const std::string rw = Option(c.argv, "--rw");
      const bool home = Option(c.argv, "--nfs_url").find("/home/") != std::string::npos;
      out.out = Report(rw, rw == "write" && home ? write_mbps.at(c.host) : 900);
      return out;
    };
  }
  const CheckResult& Of(const std::string& node) {
    for (const CheckResult& r : results) {
      if (r.check == "storage.nfs_fio" && r.subject == node) return r;
    }
    FAIL("no storage.nfs_fio result for " << node);
    return results.front();
  }
};

TEST_CASE("storage.nfs_fio: one round per export; each client writes then reads its one file through fio's nfs engine") {
  NfsFioBench run;
  run.Phase("storage.nfs_fio");
  CHECK(run.Of("node01").outcome == CheckOutcome::kSkip);
  CHECK(run.Of("node01").detail == "node01 has no nfs_mounts or nfs_external_mounts");
  for (const char* node : {"node02", "node03", "node04"}) {
    CAPTURE(node);
    CHECK_MESSAGE(run.Of(node).outcome == CheckOutcome::kPass, run.Of(node).detail);
  }
  CHECK(run.Of("node02").measured == "10.1.0.21:/home write 410 MB/s, 10.1.0.21:/home read 900 MB/s");
  CHECK(run.Of("node04").measured ==
        "10.1.0.21:/home write 420 MB/s, 10.1.0.21:/home read 900 MB/s, 10.9.9.9:/proj write 900 MB/s, 10.9.9.9:/proj read 900 MB/s");
  CHECK(run.Of("node04").detail.find("10.9.9.9:/proj write: ") != std::string::npos);  // alone on its export: its floor only
  // The cluster's export first (every client at once), then the NAS (node04 alone).
  REQUIRE(run.ran.size() == 8);
  CHECK(run.ran[0].host == "node02");
  CHECK(run.ran[0].argv == Argv{"/usr/bin/fio", "--name=clusterctl-accept", "--filename=fio-node02", "--rw=write", "--bs=8M",
                                "--size=1024M", "--runtime=30", "--time_based", "--ioengine=nfs",
                                "--nfs_url=nfs://10.1.0.21/home/.clusterctl-validate", "--iodepth=1", "--output-format=json"});
  CHECK(run.ran[1].host == "node02");
  CHECK(Option(run.ran[1].argv, "--rw") == "read");
  CHECK(Option(run.ran[1].argv, "--filename") == "fio-node02");
  CHECK(run.ran[5].host == "node04");
  CHECK(Option(run.ran[6].argv, "--nfs_url") == "nfs://10.9.9.9/proj/.clusterctl-validate");
  CHECK(run.ran[6].host == "node04");
  CHECK(run.progress == std::vector<std::string>{
                            "storage.nfs_fio: write then read through 10.1.0.21:/home on 3 nodes (30 s each)",
                            "storage.nfs_fio: write then read through 10.9.9.9:/proj on 1 nodes (30 s each)"});
}

TEST_CASE("storage.nfs_fio: a client writing through the export at a third of its peers' speed fails, named with the export") {
  NfsFioBench run;
  run.write_mbps["node03"] = 130;
  run.Phase("storage.nfs_fio");
  CHECK(run.Of("node03").outcome == CheckOutcome::kFail);
  CHECK(run.Of("node03").detail == std::string(kHome) + " write: 130 MB/s < median 410 MB/s - 25% of 3 nodes");
  CHECK(run.Of("node02").outcome == CheckOutcome::kPass);
  CHECK(run.Of("node04").outcome == CheckOutcome::kPass);
}

TEST_CASE("storage.nfs_fio: Debian 12's fio has no nfs engine: not applicable, with its version, and nothing run there") {
  NfsFioBench run;
  // Debian 12's fio 3.33, as it answers --enghelp=nfs (captured: stdout, stderr, exit 1).
  run.Node("node03").outputs["fio --version"].out = "fio-3.33\n";
  ToolOutput& help = run.Node("node03").outputs["fio --enghelp=nfs"];
  help.out = testing::CapturedFixture("fio-enghelp-nfs--3.33-Debian-12--no-engine--stdout--1.txt");
  help.err = testing::CapturedFixture("fio-enghelp-nfs--3.33-Debian-12--no-engine--stderr--1.txt");
  help.exit_code = 1;
  run.Phase("storage.nfs_fio");
  CHECK(run.Of("node03").outcome == CheckOutcome::kSkip);
  CHECK(run.Of("node03").detail == "not applicable: fio 3.33 has no libnfs engine (Debian 13's has)");
  for (const HostCommand& c : run.ran) CHECK(c.host != "node03");
  CHECK(run.Of("node02").outcome == CheckOutcome::kPass);
}

TEST_CASE("storage.nfs_fio: no reading is no pass: fio missing, a job's error, an --enghelp that says nothing, the deadline") {
  NfsFioBench run;
  run.Node("node02").outputs["fio installed"].exit_code = 1;
  run.Node("node03").outputs["fio --enghelp=nfs"] = ToolOutput{.exit_code = -1, .timed_out = true};
  run.answer = [](const HostCommand& c) {
    ToolOutput out;  // node04: the real report of a job fio could not open its file for (error 2)
    out.out = testing::CapturedFixture("fio-output-json--3.33-Debian-12--open-ENOENT--1.json");
    out.err = "fio: pid=0, err=2/file:filesetup.c:174, func=open, error=No such file or directory\n";
    return c.host == "node04" ? out : ToolOutput{};
  };
  run.Phase("storage.nfs_fio");
  CHECK(run.Of("node02").detail == "fio is not installed on node02 (the acceptance-tools role installs it: acceptance_tools: true)");
  CHECK(run.Of("node03").outcome == CheckOutcome::kFail);
  CHECK(run.Of("node03").detail == "cannot tell whether fio has its nfs engine on node03 (fio --enghelp=nfs: timed out)");
  CHECK(run.Of("node04").outcome == CheckOutcome::kFail);
  CHECK(run.Of("node04").detail.find(std::string(kHome) + " write: fio's job failed with error 2; " + kHome +
                                     " read: fio's job failed with error 2") == 0);
  CHECK(std::find(run.Of("node04").evidence.begin(), run.Of("node04").evidence.end(),
                  "fio: pid=0, err=2/file:filesetup.c:174, func=open, error=No such file or directory") != run.Of("node04").evidence.end());

  NfsFioBench late;
  late.seconds_left = 60;  // a round takes twice 30 s and its margin
  late.Phase("storage.nfs_fio");
  CHECK(late.ran.empty());
  CHECK(late.Of("node02").detail == std::string(kHome) + " write: not run: the validation's deadline (900 s) passed first");
}

TEST_CASE("storage.nfs_fio: a job that ends without a report (fio stopped at its time limit) fails its part, and runs once") {
  NfsFioBench run;
  const auto answer = run.answer;
  run.answer = [&](const HostCommand& c) {
    if (c.host != "node03" || Option(c.argv, "--rw") != "read") return answer(c);
    ToolOutput hung;  // as fio 3.39's nfs engine at --iodepth=8 ended on the testbed: in-flight reads failed at umount, then no end
    hung.exit_code = -1;
    hung.timed_out = true;
    hung.err = "Failed NFS operation(code:-14): \nfio: terminating on signal 15\n";
    return hung;
  };
  run.Phase("storage.nfs_fio");
  CHECK(run.ran.size() == 8);  // every job once: nothing runs again
  CHECK(run.Of("node03").outcome == CheckOutcome::kFail);
  CHECK(run.Of("node03").detail == std::string(kHome) + " read: fio printed no JSON report");
  CHECK(run.Of("node02").outcome == CheckOutcome::kPass);
  for (const HostCommand& c : run.ran) CHECK(c.timeout_s == 30 + 60);  // each job stopped at its time + 60 s
}

TEST_CASE("storage.nfs_fio: one request in flight (--iodepth=1), blocks of the largest of 8, 4, 2, 1 MiB that divides the file") {
  for (const auto& [size, block] : std::vector<std::pair<int, std::string>>{{1024, "8M"}, {16, "8M"}, {12, "4M"}, {20, "4M"}, {6, "2M"}, {1, "1M"}, {7, "1M"}}) {
    CAPTURE(size);
    NfsFioBench run;
    for (const char* node : {"node02", "node03", "node04"}) run.vars[node] = {{"validate_nfs_fio_size_mib", size}};
    run.Phase("storage.nfs_fio");
    REQUIRE(run.ran.size() == 8);
    for (const HostCommand& c : run.ran) {
      CHECK(Option(c.argv, "--bs") == block);
      CHECK(Option(c.argv, "--size") == std::to_string(size) + "M");
      CHECK(Option(c.argv, "--iodepth") == "1");
    }
  }
}

TEST_CASE("storage.nfs_fio: the file's size, the floors and the time are the node's variables") {
  NfsFioBench run;
  for (const char* node : {"node02", "node03", "node04"}) {
    run.vars[node] = {{"validate_nfs_fio_size_mib", 16}, {"validate_nfs_fio_read_min_mbps", 1000}, {"validate_acceptance_seconds", 2}};
  }
  run.Phase("storage.nfs_fio");
  CHECK(Option(run.ran[0].argv, "--size") == "16M");
  CHECK(Option(run.ran[0].argv, "--runtime") == "2");
  CHECK(run.Of("node02").outcome == CheckOutcome::kFail);
  CHECK(run.Of("node02").detail == std::string(kHome) + " read: 900 MB/s < floor 1000 MB/s");
}

}  // namespace
}  // namespace clusterctl
