// fio's JSON report (--output-format=json) read as storage.fio and
// storage.nfs_fio read it, on real reports of Debian 12's fio 3.33
// (tests/fixtures/captured/SOURCES.md: a sequential write and a read of
// 1 MiB blocks, and a job that could not open its file), and the job's
// arguments.
#include <doctest/doctest.h>

#include "controller/validate/checks/fio.h"
#include "tests/unit/fixture.h"

namespace clusterctl {
namespace {

std::string Captured(const std::string& name) { return testing::CapturedFixture("fio-output-json--3.33-Debian-12--" + name + "--1.json"); }

TEST_CASE("fio's report: the bandwidth of the job's direction, in bytes per second") {
  Result<double> write = checks::FioBytesPerSecond(Captured("seq-write-1M-ext4"), "write");
  REQUIRE(write.ok());
  CHECK(*write == 4508073159.0);
  Result<double> read = checks::FioBytesPerSecond(Captured("seq-read-1M-ext4"), "read");
  REQUIRE(read.ok());
  CHECK(*read == 1519791368.0);
  // A write job's report has a read section too, at 0: asked for it, a reading of 0 (below any floor), not a pass.
  CHECK(*checks::FioBytesPerSecond(Captured("seq-write-1M-ext4"), "read") == 0);
  // fio's warnings before the report.
  CHECK(checks::FioBytesPerSecond("fio: this platform does not support O_DIRECT well\n" + Captured("seq-read-1M-ext4"), "read").ok());
}

TEST_CASE("fio's report: the job's error, no report, no section are problems, never a reading") {
  Result<double> failed = checks::FioBytesPerSecond(Captured("open-ENOENT"), "write");
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.status().message() == "fio's job failed with error 2");
  CHECK(checks::FioBytesPerSecond("fio: engine nfs not loadable\n", "write").status().message() == "fio printed no JSON report");
  CHECK(checks::FioBytesPerSecond("{\"jobs\": []}", "write").status().message() == "fio printed no JSON report");
  CHECK(checks::FioBytesPerSecond("{\"jobs\": [{\"error\": 0}]}", "trim").status().message() == "fio's report has no trim.bw_bytes");
}

TEST_CASE("fio's job: time-based sequential blocks of the given size, the engine's options, the report in JSON last") {
  CHECK(checks::FioArgv("fio-node02", "read", 64, 8, 3, {"--ioengine=nfs", "--nfs_url=nfs://s/e"}) ==
        Argv{"/usr/bin/fio", "--name=clusterctl-accept", "--filename=fio-node02", "--rw=read", "--bs=8M", "--size=64M",
             "--runtime=3", "--time_based", "--ioengine=nfs", "--nfs_url=nfs://s/e", "--output-format=json"});
  CHECK(checks::FioArgv("/var/tmp/f", "write", 16, 1, 2, {"--direct=1"})[4] == "--bs=1M");
}

}  // namespace
}  // namespace clusterctl
