#include "controller/validate/fabric_checks.h"

#include <doctest/doctest.h>

#include "controller/validate/check_test_util.h"

namespace clusterctl {
namespace {

Host HostWith(const std::string& name, std::vector<Interface> interfaces) {
  Host h;
  h.name = name;
  h.interfaces = std::move(interfaces);
  return h;
}

nlohmann::json LiveIb0(int mtu, bool up, const std::string& address, const std::string& link_type = "infiniband") {
  return {{"interfaces",
           {{{"name", "eth0"}, {"up", true}, {"mtu", 1500}, {"link_type", "ether"}},
            {{"name", "ib0"}, {"up", up}, {"mtu", mtu}, {"link_type", link_type},
             {"addresses", {{{"family", "inet"}, {"address", address}, {"prefix", 16}}}}}}}};
}

// Captured on the testbed (Debian 12, iputils-ping 3:20221126-1+deb12u1): node02 to node03 over ib0 at
// MTU 4092 with DF set, and to an address nobody holds.
const char* kPingOk = "PING 10.213.178.13 (10.213.178.13) from 10.213.178.12 ib0: 4064(4092) bytes of data.\n\n"
                      "--- 10.213.178.13 ping statistics ---\n"
                      "2 packets transmitted, 2 received, 0% packet loss, time 203ms\n"
                      "rtt min/avg/max/mdev = 0.052/0.061/0.070/0.009 ms\n";
const char* kPingLost = "PING 10.213.178.99 (10.213.178.99) from 10.213.178.12 ib0: 4064(4092) bytes of data.\n\n"
                        "--- 10.213.178.99 ping statistics ---\n"
                        "2 packets transmitted, 0 received, 100% packet loss, time 201ms\n\n";

IpoibPing Ping(const std::string& peer, const char* out, int exit_code) {
  IpoibPing p{"ib0", peer, "10.10.0.13", 4092, {}};
  p.output.out = out;
  p.output.exit_code = exit_code;
  return p;
}

}  // namespace

TEST_CASE("IPoIB names are the kernel's: ib0 and P_Key children ib0.8001, nothing else") {
  CHECK(IsIpoibName("ib0"));
  CHECK(IsIpoibName("ib12"));
  CHECK(IsIpoibName("ib0.8001"));
  CHECK_FALSE(IsIpoibName("ib"));
  CHECK_FALSE(IsIpoibName("fib0"));
  CHECK_FALSE(IsIpoibName("ib0.80011"));
  CHECK_FALSE(IsIpoibName("eth0"));
}

TEST_CASE("ping summaries: replies counted, a missing summary is no reading") {
  CHECK(ParsePingSummary(kPingOk).transmitted == 2);
  CHECK(ParsePingSummary(kPingOk).received == 2);
  CHECK(ParsePingSummary(kPingLost).received == 0);
  CHECK(ParsePingSummary("ping: local error: message too long, mtu=2044\n").transmitted == -1);
  IpoibPing p{"ib0", "node03", "10.10.0.13", 4092, {}};
  CHECK(IpoibPingArgv(p) == std::vector<std::string>{"ping", "-n", "-q", "-M", "do", "-s", "4064", "-c", "2", "-i", "0.2",
                                                     "-W", "2", "-I", "ib0", "10.10.0.13"});
}

TEST_CASE("fabric.ipoib: every peer at the configured MTU passes; the link type is always shown") {
  Host host = HostWith("node02", {{"eth1", "10.0.0.2", 24}, {"ib0", "10.10.0.12", 16}});
  auto interfaces = IpoibInterfacesOf(host, LiveIb0(4092, true, "10.10.0.12"), 4092);
  REQUIRE(interfaces.size() == 1);  // eth1 is not an IPoIB interface
  auto pass = EvaluateIpoibReach("node02", interfaces, {Ping("node03", kPingOk, 0), Ping("node01", kPingOk, 0)});
  CHECK(pass.outcome == CheckOutcome::kPass);
  CHECK(pass.measured == "2/2 peers reached");
  CHECK(pass.threshold == "every peer, DF set at MTU (ib0 4092)");
  CHECK(pass.detail.find("link type infiniband") != std::string::npos);

  // The testbed's fabric is veth: reachability is real, and the result says the link is not InfiniBand.
  auto simulated = IpoibInterfacesOf(host, LiveIb0(4092, true, "10.10.0.12", "ether"), 4092);
  auto labelled = EvaluateIpoibReach("node02", simulated, {Ping("node03", kPingOk, 0)});
  CHECK(labelled.detail.find("link type ether (not an InfiniBand link)") != std::string::npos);
}

TEST_CASE("fabric.ipoib fails: a lost ping, a wrong MTU, a missing address, no ping, no interface") {
  Host host = HostWith("node02", {{"ib0", "10.10.0.12", 16}});
  auto ok = IpoibInterfacesOf(host, LiveIb0(4092, true, "10.10.0.12"), 4092);
  auto lost = EvaluateIpoibReach("node02", ok, {Ping("node03", kPingOk, 0), Ping("node04", kPingLost, 1)});
  CHECK(lost.outcome == CheckOutcome::kFail);
  CHECK(lost.detail == "ib0 -> node04 10.10.0.13 at MTU 4092: 0/2 replies with DF set");
  CHECK(lost.measured == "1/2 peers reached");
  CHECK(testing::EvidenceHas(lost, "node04: 2 packets transmitted, 0 received, 100% packet loss"));

  // Exit 0 with no summary is not a reply.
  auto unreadable = EvaluateIpoibReach("node02", ok, {Ping("node03", "", 0)});
  CHECK(unreadable.outcome == CheckOutcome::kFail);

  auto too_small = IpoibInterfacesOf(host, LiveIb0(2044, true, "10.10.0.12"), 4092);
  auto mtu = EvaluateIpoibReach("node02", too_small, {});
  CHECK(mtu.outcome == CheckOutcome::kFail);
  CHECK(mtu.detail == "ib0 MTU 2044, configured 4092");

  auto no_address = IpoibInterfacesOf(host, LiveIb0(4092, true, "10.10.0.99"), 0);
  CHECK(EvaluateIpoibReach("node02", no_address, {}).detail == "ib0 does not have its address 10.10.0.12");
  auto down = IpoibInterfacesOf(host, LiveIb0(4092, false, "10.10.0.12"), 0);
  CHECK(EvaluateIpoibReach("node02", down, {}).detail == "ib0 is down");
  auto missing = IpoibInterfacesOf(host, nlohmann::json::object(), 0);
  CHECK(EvaluateIpoibReach("node02", missing, {}).detail == "ib0 does not exist on the node");

  IpoibPing not_installed = Ping("node03", "", -1);
  not_installed.output.started = false;
  CHECK(EvaluateIpoibReach("node02", ok, {not_installed}).detail == "ping is not installed (the ipoib role installs it)");

  CHECK(EvaluateIpoibReach("node02", {}, {}).outcome == CheckOutcome::kSkip);
  CHECK(EvaluateIpoibReach("node02", ok, {}).outcome == CheckOutcome::kSkip);  // no peer on ib0
}

}  // namespace clusterctl
