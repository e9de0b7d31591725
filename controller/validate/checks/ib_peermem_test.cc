// ib.peermem: the kernel log's peer-memory lines as evidence, on real
// captures (tests/fixtures/captured/SOURCES.md): a GB300 node whose
// nvidia_peermem fails to load against the installed ib_core (fail, and the
// log says why), and a node whose loaded nvidia-peermem logged a runtime
// error beside Xid lines (a pass: a loaded module's runtime errors are a
// note, not a verdict).
#include <doctest/doctest.h>

#include <string>

#include "controller/validate/verdicts.h"
#include "tests/unit/fixture.h"

namespace clusterctl {

TEST_CASE("ib.peermem: nvidia_peermem not loaded, and the kernel log's unknown-symbol lines say why") {
  std::string log = testing::CapturedFixture("dmesg-T-grep-peermem--GB300-aarch64--unknown-symbol--1.txt");
  std::vector<std::string> errors = PeerMemoryErrors(log);
  REQUIRE(errors.size() == 8);  // every line: a mismatched or unknown symbol
  CHECK(errors[1] == "[Tue Sep  8 17:16:02 2026] nvidia_peermem: Unknown symbol ib_register_peer_memory_client (err -22)");
  CheckResult r = EvaluatePeerMemory("gb300", {"nvidia", "mlx5_ib", "ib_core"}, nullptr, errors);
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.detail.find("the kernel log since boot has 8 peer-memory error lines, first: [Tue Sep  8 17:16:02 2026] "
                      "nvidia_peermem: disagrees about version of symbol ib_register_peer_memory_client") != std::string::npos);
  REQUIRE(r.evidence.size() == 9);
  CHECK(r.evidence[0] == "/proc/modules: no line for nvidia_peermem or nv_peer_mem");
  // Without the log the verdict is the same, with less to go on.
  CheckResult bare = EvaluatePeerMemory("gb300", {"nvidia"}, nullptr, {});
  CHECK(bare.outcome == CheckOutcome::kFail);
  CHECK(bare.evidence.size() == 1);
}

TEST_CASE("ib.peermem: a loaded nvidia_peermem's runtime error is noted beside the pass; other lines are not its") {
  std::string log = testing::CapturedFixture("dmesg-ctime--peermem-invalid-context-xid-13-109--1.txt");
  std::vector<std::string> errors = PeerMemoryErrors(log);
  REQUIRE(errors.size() == 1);  // the Xid lines ("Errors", "errorString") are not the module's
  CHECK(errors[0].find("nv_get_p2p_free_callback:127 ERROR detected invalid context") != std::string::npos);
  CheckResult r = EvaluatePeerMemory("n", {"nvidia", "nvidia_peermem"}, nullptr, errors);
  CHECK(r.outcome == CheckOutcome::kPass);
  CHECK(r.measured == "nvidia_peermem");
  CHECK(r.detail.find("1 peer-memory error line, first: [Fri Aug 30 11:11:22 2024] nvidia-peermem") != std::string::npos);
  CHECK(PeerMemoryErrors("[    3.2] nvidia-peermem: loaded\n").empty());
}

}  // namespace clusterctl
