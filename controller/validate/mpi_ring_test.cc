// The MPI test program's output (templates/clusterctl-mpi-ring.c.mustache) and
// mpi.cluster's verdict: a right run passes with what it measured; every way
// the run can be wrong fails, saying how; hostile output never passes.
#include <doctest/doctest.h>

#include "controller/validate/mpi_ring.h"

namespace clusterctl {
namespace {

// Printed by the program on this machine (mpirun -np 2), hosts renamed.
const char* kHealthy =
    "ring: ok ranks=2 nodes=node02,node03\n"
    "pingpong: latency_us=23.41 bandwidth_mbps=1843.5 between=node02,node03\n";

ToolOutput Ran(std::string out, int exit_code = 0) {
  ToolOutput o;
  o.out = std::move(out);
  o.exit_code = exit_code;
  return o;
}

MpiLimits Limits(double latency, std::optional<double> bandwidth) {
  return {latency, bandwidth, bandwidth ? "validate_mpi_bandwidth_min_mbps" : "no InfiniBand port"};
}

const std::vector<std::string> kNodes = {"node02", "node03"};

}  // namespace

TEST_CASE("ParseMpiRing reads the ring and the ping-pong, ignoring other lines") {
  auto r = ParseMpiRing(std::string("srun: warning: something\n") + kHealthy + "[node02] Open MPI note\n");
  REQUIRE(r.ok());
  CHECK(r->ring_ok);
  CHECK(r->ranks == 2);
  CHECK(r->nodes == kNodes);
  CHECK(*r->latency_us == doctest::Approx(23.41));
  CHECK(*r->bandwidth_mbps == doctest::Approx(1843.5));
  CHECK(r->between == kNodes);
}

TEST_CASE("ParseMpiRing refuses what is not the program's output") {
  CHECK_FALSE(ParseMpiRing("").ok());
  CHECK_FALSE(ParseMpiRing("all good\n").ok());
  CHECK_FALSE(ParseMpiRing("pingpong: latency_us=1 bandwidth_mbps=2 between=a,b\n").ok());  // no ring line
  for (const char* bad : {"ring: ok ranks=two nodes=a,b", "ring: ok ranks=3 nodes=a,b", "ring: ok nodes=a,b",
                          "ring: okay ranks=2 nodes=a,b", "ring: ok ranks=2 ranks=2 nodes=a,b", "ring: ok ranks=-2 nodes=a,b",
                          "ring: ok ranks=1e9 nodes=a", "ring: ok ranks=2 nodes=a,b junk"}) {
    CAPTURE(bad);
    auto r = ParseMpiRing(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("unreadable line") != std::string::npos);
  }
  for (const char* bad : {"pingpong: latency_us=nan bandwidth_mbps=1 between=a,b", "pingpong: latency_us=1 between=a,b",
                          "pingpong: latency_us=-1 bandwidth_mbps=1 between=a,b", "pingpong: latency_us=1 bandwidth_mbps=1e999 between=a,b"}) {
    CAPTURE(bad);
    CHECK_FALSE(ParseMpiRing(std::string("ring: ok ranks=2 nodes=a,b\n") + bad).ok());
  }
}

TEST_CASE("ParseMpiRing keeps the ring's failures") {
  auto r = ParseMpiRing("ring: FAILED rank=1 received=7 expected=0\n");
  REQUIRE(r.ok());
  CHECK_FALSE(r->ring_ok);
  REQUIRE(r->ring_failures.size() == 1);
  // An "ok" from rank 0 cannot hide another rank's failure.
  CHECK_FALSE(ParseMpiRing("ring: ok ranks=2 nodes=a,b\nring: FAILED rank=1 received=7 expected=0\n")->ring_ok);
}

TEST_CASE("mpi.cluster passes a right run within its limits, with what it measured") {
  CheckResult r = EvaluateMpiRing("c", kNodes, Ran(kHealthy), Limits(100, 1000));
  CHECK(r.outcome == CheckOutcome::kPass);
  CHECK(r.measured == "23.41 us, 1843.5 MB/s");
  CHECK(r.threshold == "<= 100 us, >= 1000 MB/s");
  CheckResult no_floor = EvaluateMpiRing("c", kNodes, Ran(kHealthy), Limits(100, std::nullopt));
  CHECK(no_floor.outcome == CheckOutcome::kPass);
  CHECK(no_floor.detail.find("bandwidth not judged: no InfiniBand port") != std::string::npos);
}

TEST_CASE("mpi.cluster fails each way a run can be wrong") {
  auto fails = [](const ToolOutput& out, const MpiLimits& limits, const std::string& says) {
    CheckResult r = EvaluateMpiRing("c", kNodes, out, limits);
    CAPTURE(r.detail);
    CHECK(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail.find(says) != std::string::npos);
  };
  fails(Ran(kHealthy, 1), Limits(100, 1), "the MPI job across node02,node03 failed (exit 1)");
  fails(Ran("ring: FAILED rank=1 received=5 expected=0\n"), Limits(100, 1), "passed wrong values");
  fails(Ran("ring: ok ranks=2 nodes=node02,node02\npingpong: latency_us=1 bandwidth_mbps=9 between=node02,node02\n"),
        Limits(100, 1), "not one on each of node02,node03");
  fails(Ran("ring: ok ranks=2 nodes=node02,node03\n"), Limits(100, 1), "no ping-pong line");
  fails(Ran(kHealthy), Limits(10, 1), "latency between node02 and node03 is 23.41 us, over 10 us");
  fails(Ran(kHealthy), Limits(100, 5000), "bandwidth between node02 and node03 is 1843.5 MB/s, under 5000 MB/s");
  fails(Ran("ring: ok ranks=2 nodes=node02,node03\npingpong: latency_us=\x01 between=x\n"), Limits(100, 1), "unreadable line");
  fails(Ran("Hello\n"), Limits(100, 1), "no ring line");
}

}  // namespace clusterctl
