#include "controller/state/filesystem_check.h"

#include <doctest/doctest.h>

namespace clusterctl {
namespace {

class FakeProbe final : public FilesystemProbe {
 public:
  FakeProbe(unsigned long magic, std::string subtype) : magic_(magic), subtype_(std::move(subtype)) {}
  Result<FilesystemInfo> Probe(const std::string&) const override { return FilesystemInfo{magic_, subtype_, "/"}; }

 private:
  unsigned long magic_;
  std::string subtype_;
};

}  // namespace

TEST_CASE("network file systems are named, local ones are not") {
  CHECK(NetworkFilesystemName(0x6969, "") == "NFS");
  CHECK(NetworkFilesystemName(0x0BD00BD0, "") == "Lustre");
  CHECK(NetworkFilesystemName(0x47504653, "") == "GPFS (Spectrum Scale)");
  CHECK(NetworkFilesystemName(0x65735546, "sshfs") == "FUSE sshfs");
  CHECK(NetworkFilesystemName(0x65735546, "bindfs") == "");
  CHECK(NetworkFilesystemName(0xEF53, "") == "");      // ext4
  CHECK(NetworkFilesystemName(0x58465342, "") == "");  // xfs
}

TEST_CASE("CheckStateFilesystem refuses NFS with a message that says what to do") {
  Status status = CheckStateFilesystem("/home/admin/.clusterctl", FakeProbe(0x6969, ""));
  REQUIRE_FALSE(status.ok());
  CHECK(status.message() ==
        "the state directory /home/admin/.clusterctl is on a network file system (NFS); SQLite's WAL mode and the "
        "state lock need a local file system. Put the state on a local disk with --state DIR (for example "
        "--state /var/lib/clusterctl/<cluster>)");
  CHECK(CheckStateFilesystem("/var/lib/x", FakeProbe(0xEF53, "")).ok());
}

TEST_CASE("the real probe reads this machine's root file system as local") {
  SystemFilesystemProbe probe;
  auto info = probe.Probe("/");
  REQUIRE(info.ok());
  CHECK(info->mount_point == "/");
}

}  // namespace clusterctl
