// node.disk on a real df capture (tests/fixtures/captured/SOURCES.md) and
// on edits of it: full, out of inodes, a missing path, output it does not
// understand, and floors from the inventory.
#include <doctest/doctest.h>

#include "controller/validate/checks/spec_test_util.h"
#include "tests/unit/fixture.h"

namespace clusterctl {
namespace {

const char* kCapture = "df-output-B1--debian12-5-paths--1.txt";

// The capture with every `from` replaced by `to` (at least one).
std::string Edited(const std::string& from, const std::string& to) {
  std::string text = testing::CapturedFixture(kCapture);
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  for (; at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  return text;
}

TEST_CASE("node.disk passes the captured df and judges each file system once") {
  testing::SpecBench bench;
  bench.Reads("df", testing::CapturedFixture(kCapture));
  CheckResult r = bench.Judge("node.disk");
  CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
  CHECK(r.measured == "2 file systems");
  CHECK(r.threshold == ">= 1 GiB and 5% free");
  CHECK(r.detail.find("/ 71.38 GiB free") != std::string::npos);
  CHECK(r.detail.find("/dev/shm") != std::string::npos);
}

TEST_CASE("node.disk fails a file system below either floor, naming it") {
  testing::SpecBench bench;
  SUBCASE("under 5% free") {
    bench.Reads("df", Edited("76648206336", "10000000000"));  // the root file system's free bytes  // 9.31 GiB of 252 GiB: 3.7%
    CheckResult r = bench.Judge("node.disk");
    REQUIRE(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == "low on space: /: 9.31 GiB free (3.7%)");
  }
  SUBCASE("under 1 GiB free on a small file system") {
    bench.Reads("df", Edited(" 25276502016 25276502016", " 1073741824 536870912"));
    CheckResult r = bench.Judge("node.disk");
    REQUIRE(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == "low on space: /dev/shm: 0.5 GiB free (50%)");
  }
  SUBCASE("out of inodes with bytes to spare") {
    bench.Reads("df", Edited("3085510  3085509", "3085510       12"));
    CheckResult r = bench.Judge("node.disk");
    REQUIRE(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == "low on space: /dev/shm: 0% of inodes free");
  }
}

TEST_CASE("node.disk takes its floors and paths from the inventory") {
  testing::SpecBench bench;
  bench.Reads("df", testing::CapturedFixture(kCapture));
  bench.vars["validate_disk_free_min_percent"] = 50;
  CHECK(bench.Judge("node.disk").detail == "low on space: /: 71.38 GiB free (28.33%)");
  bench.vars["validate_disk_free_min_gib"] = 100;
  bench.vars["validate_disk_free_min_percent"] = 0;
  CHECK(bench.Judge("node.disk").detail == "low on space: /: 71.38 GiB free (28.33%); /dev/shm: 23.54 GiB free (100%)");

  // The paths are arguments after "--": a path is never read as an option.
  CHECK(bench.Command("node.disk", "df") ==
        Argv{"df", "--output=size,avail,itotal,iavail,target", "-B1", "--", "/", "/tmp", "/var"});
  bench.vars["validate_disk_paths"] = {"/scratch", "-h"};
  CHECK(bench.Command("node.disk", "df") ==
        Argv{"df", "--output=size,avail,itotal,iavail,target", "-B1", "--", "/scratch", "-h"});
}

TEST_CASE("node.disk: no reading, no pass") {
  testing::SpecBench bench;
  SUBCASE("a path that does not exist") {
    bench.Reads("df", testing::CapturedFixture(kCapture), 1, "df: /scratch: No such file or directory");
    CheckResult r = bench.Judge("node.disk");
    REQUIRE(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail.find("/scratch: No such file or directory") != std::string::npos);
  }
  SUBCASE("df not installed") {
    CheckResult r = bench.Judge("node.disk");  // the probe did not run: a not-started output
    REQUIRE(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == "df is not installed");
  }
  SUBCASE("an answer far longer than df's table") {
    bench.Reads("df", testing::CapturedFixture(kCapture) + std::string(2 << 20, 'x'));
    CheckResult r = bench.Judge("node.disk");
    REQUIRE(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail.find("not df's table") != std::string::npos);
  }
  SUBCASE("output it does not understand") {
    for (const char* text : {"", "Filesystem 1K-blocks Used Available Use% Mounted on\n/dev/sda1 10 5 5 50% /\n",
                             "   1B-blocks       Avail   Inodes    IFree Mounted on\n", "   1B-blocks Avail\n-1 x /\n",
                             "   1B-blocks       Avail   Inodes    IFree Mounted on\n12 34 56 78\n"}) {
      bench.Reads("df", text);
      CheckResult r = bench.Judge("node.disk");
      CHECK_MESSAGE(r.outcome == CheckOutcome::kFail, text);
    }
  }
}

}  // namespace
}  // namespace clusterctl
