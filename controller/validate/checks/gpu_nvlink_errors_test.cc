// gpu.nvlink_errors: nvidia-smi nvlink -e read and judged against its
// limits, on real captures (tests/fixtures/captured/SOURCES.md): the pass,
// 8x A100-SXM4-40GB, driver 535, every counter 0; the failure, two V100-
// SXM2 GPUs on a carrier board with a damaged NVLink trace (driver 580),
// replay errors on both ends of the link and its CRC counter at 65535. A
// second failing case is derived from the A100 capture by one named edit
// (a recovery counter, which neither real capture has above 0).
#include <doctest/doctest.h>

#include <string>

#include "controller/validate/check_test_util.h"
#include "controller/validate/verdicts.h"
#include "tests/unit/fixture.h"

namespace clusterctl {
namespace {

using testing::EvidenceHas;
using testing::Output;

std::string AllZero() { return testing::CapturedFixture("nvidia-smi-nvlink-e--8xA100-SXM4-40GB--all-zero--1.txt"); }

// The one named edit: GPU 3's link 7 given 505 recovery errors.
std::string Gpu3Link7Recovering() {
  std::string text = AllZero();
  size_t gpu = text.find("GPU 3:");
  size_t at = text.find("Link 7: Recovery Errors: 0\n", gpu);
  REQUIRE(at != std::string::npos);
  text.replace(at, std::string("Link 7: Recovery Errors: 0").size(), "Link 7: Recovery Errors: 505");
  return text;
}

}  // namespace

TEST_CASE("nvidia-smi nvlink -e: 8 A100s, 12 links each, three counters per link, all 0") {
  auto gpus = ParseNvlinkErrors(AllZero());
  REQUIRE(gpus.ok());
  REQUIRE(gpus->size() == 8);
  REQUIRE((*gpus)[7].counters.size() == 36);
  CHECK((*gpus)[7].counters[35].link == 11);
  CHECK((*gpus)[7].counters[35].name == "CRC Errors");
  CHECK((*gpus)[7].counters[35].value == 0);
  CHECK((*gpus)[7].counters[35].line == "GPU 7: NVIDIA A100-SXM4-40GB: Link 11: CRC Errors: 0");
  CheckResult r = EvaluateNvlinkErrors("n", Output(AllZero()), NvlinkErrorLimits{});
  CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
  CHECK(r.measured == "0");
  CHECK(r.threshold == "CRC <= 0, replay <= 0, recovery <= 0");
  CHECK(r.detail.find("288 CRC, replay and recovery counters on 8 GPUs") != std::string::npos);
}

TEST_CASE("gpu.nvlink_errors: one link's recovery counter over its limit fails, named; a higher limit passes it") {
  CheckResult r = EvaluateNvlinkErrors("n", Output(Gpu3Link7Recovering()), NvlinkErrorLimits{});
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK_MESSAGE(EvidenceHas(r, "GPU 3: NVIDIA A100-SXM4-40GB: Link 7: Recovery Errors: 505 (limit 0)"), r.detail);
  CHECK(r.evidence.size() == 1);
  CHECK(r.measured == "505");
  NvlinkErrorLimits lenient;
  lenient.recovery_max = 1000;
  CHECK(EvaluateNvlinkErrors("n", Output(Gpu3Link7Recovering()), lenient).outcome == CheckOutcome::kPass);
  // The other counters keep their own limits: a CRC limit does not cover recovery.
  NvlinkErrorLimits crc_only;
  crc_only.crc_max = 1000;
  CHECK(EvaluateNvlinkErrors("n", Output(Gpu3Link7Recovering()), crc_only).outcome == CheckOutcome::kFail);
}

TEST_CASE("gpu.nvlink_errors: the real V100 capture fails, each counter over its limit named with its GPU and link") {
  const std::string text = testing::CapturedFixture("nvidia-smi-nvlink-e--2xV100-SXM2-32GB-LS--replay-211-crc-65535--1.txt");
  auto gpus = ParseNvlinkErrors(text);
  REQUIRE(gpus.ok());
  REQUIRE(gpus->size() == 2);
  CHECK((*gpus)[1].index == 2);  // the capture lists GPUs 0 and 2 (the host has 4)
  REQUIRE((*gpus)[1].counters.size() == 18);
  CheckResult r = EvaluateNvlinkErrors("n", Output(text), NvlinkErrorLimits{});
  CHECK(r.outcome == CheckOutcome::kFail);
  CHECK(r.detail == "NVLink error counters over their limits: GPU 0: Tesla V100-SXM2-32GB-LS: Link 3: Replay Errors: 211 (limit 0) and 2 more");
  CHECK(r.evidence == std::vector<std::string>{"GPU 0: Tesla V100-SXM2-32GB-LS: Link 3: Replay Errors: 211 (limit 0)",
                                               "GPU 2: Tesla V100-SXM2-32GB-LS: Link 0: Replay Errors: 2 (limit 0)",
                                               "GPU 2: Tesla V100-SXM2-32GB-LS: Link 0: CRC Errors: 65535 (limit 0)"});
  CHECK(r.measured == "65535");
  // Limits at the readings pass it; one below the CRC reading fails only that counter.
  NvlinkErrorLimits at;
  at.replay_max = 211;
  at.crc_max = 65535;
  CheckResult passed = EvaluateNvlinkErrors("n", Output(text), at);
  CHECK_MESSAGE(passed.outcome == CheckOutcome::kPass, passed.detail);
  CHECK(passed.detail == "36 CRC, replay and recovery counters on 2 GPUs, none over its limit");
  at.crc_max = 65534;
  CheckResult crc = EvaluateNvlinkErrors("n", Output(text), at);
  CHECK(crc.evidence == std::vector<std::string>{"GPU 2: Tesla V100-SXM2-32GB-LS: Link 0: CRC Errors: 65535 (limit 65534)"});
}

TEST_CASE("gpu.nvlink_errors: other output, no output and no counters are no reading, never a pass") {
  // nvidia-smi nvlink -s (speeds, not counters) is not -e's output.
  std::string status = testing::CapturedFixture("nvidia-smi-nvlink-status--8xA100-SXM4-80GB--1.txt");
  CHECK_FALSE(ParseNvlinkErrors(status).ok());
  CHECK(EvaluateNvlinkErrors("n", Output(status), NvlinkErrorLimits{}).outcome == CheckOutcome::kFail);
  CHECK(EvaluateNvlinkErrors("n", Output(""), NvlinkErrorLimits{}).outcome == CheckOutcome::kFail);
  CHECK(EvaluateNvlinkErrors("n", Output(AllZero(), 9), NvlinkErrorLimits{}).outcome == CheckOutcome::kFail);
  // Counters printed N/A only: nothing judged.
  CheckResult na = EvaluateNvlinkErrors(
      "n", Output("GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-0)\n\t Link 0: CRC Errors: N/A\n"), NvlinkErrorLimits{});
  CHECK(na.outcome == CheckOutcome::kFail);
  CHECK(na.detail.find("no reading") != std::string::npos);
  // A GPU without NVLink lists no link: a skip that says so.
  CheckResult none = EvaluateNvlinkErrors("n", Output("GPU 0: NVIDIA L4 (UUID: GPU-0)\n"), NvlinkErrorLimits{});
  CHECK(none.outcome == CheckOutcome::kSkip);
  CHECK_FALSE(ParseNvlinkErrors("GPU 0: NVIDIA A100 (UUID: GPU-0)\n\t Link 0: CRC Errors: -1\n").ok());
}

}  // namespace clusterctl
