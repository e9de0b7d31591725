#include "controller/validate/service_checks.h"

#include <doctest/doctest.h>

#include "controller/validate/check_test_util.h"
#include "tests/unit/fixture.h"
#include "tests/unit/inventory_text.h"

namespace clusterctl {
namespace {

using testing::EvidenceHas;
using testing::Output;

using testing::InventoryFromText;

const char* kCluster =
    "cluster: c\nhosts:\n  node01: {address: 10.0.0.11}\n  node02: {address: 10.0.0.12}\n"
    "groups:\n  controller: {hosts: node01}\n  monitoring: {hosts: node01}\n  compute: {hosts: node02}\n";

std::string Up(const std::string& job, const std::string& node, const std::string& value) {
  return R"({"metric":{"__name__":"up","instance":"10.0.0.1:9","job":")" + job + R"(","node":")" + node +
         R"("},"value":[1795470576.216,")" + value + R"("]})";
}

}  // namespace

TEST_CASE("monitoring.targets: every node exporter, the Slurm exporter on the controller, DCGM on GPU hosts") {
  // The DCGM exporter where the dcgm-exporter role runs: GPUs and NVIDIA's
  // repository (by the monitoring host's variables), loaded driver or not.
  const Inventory inventory = InventoryFromText(std::string(kCluster) + "vars: {nvidia_driver_source: site}\n");
  std::map<std::string, nlohmann::json> facts = {{"node02", {{"pci", {{"gpu_count", 8}}}, {"nvidia_driver", nullptr}}}, {"node01", nullptr}};
  const std::vector<ExpectedTarget> expected = ExpectedTargets(inventory, facts);
  REQUIRE(expected.size() == 4);
  CHECK(ExpectedTargets(InventoryFromText(kCluster), facts).size() == 3);  // Debian's driver: no DCGM, no exporter
  CHECK(ExpectedTargets(InventoryFromText(std::string(kCluster) + "vars: {dcgm_exporter_repository: 'http://mirror/'}\n"), facts)
            .size() == 4);
  CHECK(ExpectedTargets(InventoryFromText(std::string(kCluster) + "vars: {dcgm_repository: 'http://mirror/'}\n"), facts).size() == 4);
  facts["node02"]["pci"]["gpu_count"] = 0;
  CHECK(ExpectedTargets(inventory, facts).size() == 3);
  CHECK(expected[0].job == "dcgm");
  CHECK(expected[0].node == "node02");
  CHECK(PrometheusUrl(*inventory.FindHost("node01")) == "http://10.0.0.11:9090");
  CHECK(PrometheusScrapeSeconds(*inventory.FindHost("node01")) == 15);
  const Inventory tuned = InventoryFromText(std::string(kCluster) + "vars: {prometheus_scrape_interval: 1m, prometheus_port: 9999}\n");
  CHECK(PrometheusScrapeSeconds(*tuned.FindHost("node01")) == 60);
  CHECK(PrometheusUrl(*tuned.FindHost("node01")) == "http://10.0.0.11:9999");

  const std::string all_up = "[" + Up("node", "node01", "1") + "," + Up("node", "node02", "1") + "," +
                             Up("slurm", "node01", "1") + "," + Up("dcgm", "node02", "1") + "]";
  CHECK(EvaluatePrometheusTargets("node01", Output(all_up), expected).outcome == CheckOutcome::kPass);

  const std::string one_down = "[" + Up("node", "node01", "1") + "," + Up("node", "node02", "0") + "," +
                               Up("slurm", "node01", "1") + "]";
  const CheckResult down = EvaluatePrometheusTargets("node01", Output(one_down), expected);
  CHECK(down.outcome == CheckOutcome::kFail);
  CHECK(down.detail.find("down: node02 (node)") != std::string::npos);
  CHECK(down.detail.find("not scraped at all: node02 (dcgm)") != std::string::npos);
  CHECK(EvidenceHas(down, "node=\"node02\""));
}

TEST_CASE("monitoring.targets on promtool's real output: the down target is named; errors and garbage fail") {
  const std::string captured = testing::CapturedFixture("promtool-query-up--prometheus-2.42-one-target-down--1.json");
  const std::vector<ExpectedTarget> expected = {{"node", "node01"}, {"prometheus", "node01"}};
  const CheckResult r = EvaluatePrometheusTargets("node01", Output(captured), expected);
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.detail == "down: node01 (node) at 127.0.0.1:19191");
  const CheckResult refused = EvaluatePrometheusTargets(
      "node01", Output("query error: Post \"http://10.0.0.11:9090/api/v1/query\": connection refused", 1), expected);
  CHECK(refused.outcome == CheckOutcome::kFail);
  CHECK(refused.detail.find("promtool") != std::string::npos);
  CHECK(EvaluatePrometheusTargets("node01", Output("<html>"), expected).outcome == CheckOutcome::kFail);
  CHECK(EvaluatePrometheusTargets("node01", Output("[{\"metric\":{}}]"), expected).outcome == CheckOutcome::kFail);
  // A hostile reply: labels of the wrong type are no target, never an exception.
  const std::string odd = R"([{"metric":{"job":5,"node":["x"]},"value":[1,"1"]}])";
  CHECK(EvaluatePrometheusTargets("node01", Output(odd), expected).detail.find("not scraped at all") != std::string::npos);
}

TEST_CASE("nfs.mounts: a kernel without an NFS client never passes; a wrong source or file system is named") {
  const std::vector<NfsMountProbe> none_mounted = {{"/home", "10.1.0.11:/home", Output("", 1)}};
  const CheckResult no_kernel = EvaluateNfsMounts("node02", false, none_mounted, "", false);
  CHECK(no_kernel.outcome == CheckOutcome::kFail);
  CHECK(no_kernel.detail.find("kernel has no NFS client") != std::string::npos);
  CHECK(EvaluateNfsMounts("node02", true, none_mounted, "", false).detail == "/home not mounted");
  const std::vector<NfsMountProbe> wrong = {{"/home", "10.1.0.11:/home", Output("10.0.0.11:/home nfs4\n")}};
  CHECK(EvaluateNfsMounts("node02", true, wrong, "", false).detail == "/home from 10.0.0.11:/home, not 10.1.0.11:/home");
  const std::vector<NfsMountProbe> local = {{"/home", "10.1.0.11:/home", Output("/dev/vda1 ext4\n")}};
  CHECK(EvaluateNfsMounts("node02", true, local, "", false).detail == "/home is ext4, not NFS");
  const std::vector<NfsMountProbe> right = {{"/home", "10.1.0.11:/home", Output("10.1.0.11:/home nfs4\n")}};
  CHECK(EvaluateNfsMounts("node02", true, right, "", true).outcome == CheckOutcome::kPass);
  CHECK(EvaluateNfsMounts("node02", true, right, "node03 did not read back /home/x", true).outcome == CheckOutcome::kFail);
  CHECK(EvaluateNfsMounts("node02", true, {}, "", false).outcome == CheckOutcome::kSkip);
}

TEST_CASE("nfs.export: the bytes written on one client must come back on the next") {
  NfsRoundTrip trip{"node02", "node03", "nfs://10.1.0.11/home/.clusterctl-validate/node02", "token 1", Output(""),
                    Output("token 1\n")};
  CHECK(EvaluateNfsExport("node02", trip).outcome == CheckOutcome::kPass);
  trip.read = Output("token 0\n");
  CHECK(EvaluateNfsExport("node02", trip).outcome == CheckOutcome::kFail);
  trip.read = Output("", 1);
  CHECK(EvaluateNfsExport("node02", trip).detail.find("node03 cannot read back") != std::string::npos);
  trip.write = Output("", 1);
  CHECK(EvaluateNfsExport("node02", trip).detail.find("cannot write") != std::string::npos);
  CHECK(EvaluateNfsExport("node02", trip).detail.find("outside the inventory") == std::string::npos);
}

TEST_CASE("nfs.export: every export a client mounts, the cluster's and a NAS's, must round-trip") {
  NfsRoundTrip own{"node02", "node03", "nfs://10.1.0.11/home/.clusterctl-validate/node02-1", "token 1", Output(""),
                   Output("token 1\n"), "10.1.0.11:/home", false};
  NfsRoundTrip nas{"node02", "node03", "nfs://10.0.9.5/vol/data/.clusterctl-validate/node02-1", "token 1", Output(""),
                   Output("token 1\n"), "10.0.9.5:/vol/data", true};
  CheckResult both = EvaluateNfsExports("node02", {own, nas});
  CHECK(both.outcome == CheckOutcome::kPass);
  CHECK(both.measured == "2 exports");
  CHECK(both.detail == "10.1.0.11:/home (read back on node03), 10.0.9.5:/vol/data (read back on node03)");
  nas.reader.clear();  // no other client mounts it: written only
  CHECK(EvaluateNfsExports("node02", {own, nas}).detail.find("10.0.9.5:/vol/data (written)") != std::string::npos);
  nas.write = Output("", 1);
  CheckResult failed = EvaluateNfsExports("node02", {own, nas});
  CHECK(failed.outcome == CheckOutcome::kFail);
  CHECK(failed.detail.find("cannot write nfs://10.0.9.5/vol/data/.clusterctl-validate/node02-1 (a server outside the inventory needs "
                           "its export's .clusterctl-validate/ directory") != std::string::npos);
  own.read = Output("token 0\n");
  CHECK(EvaluateNfsExports("node02", {own, nas}).detail.find("node03 read other bytes back from nfs://10.1.0.11/home") !=
        std::string::npos);
}

}  // namespace clusterctl
