#include "agent/resources/safe_path.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "agent/resources/node_files.h"
#include "controller/state/test_util.h"

namespace clusterctl::agent {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("a user's directory swapped for a link is not written through (the review's ~/.ssh -> /root/.ssh)") {
  if (::geteuid() != 0) return;  // the scenario is root writing where a user can plant links; CI runs as root
  testing::TempDir dir;
  const std::string home = dir.path() + "/home/alice";
  const std::string root_ssh = dir.path() + "/root/.ssh";
  std::filesystem::create_directories(home);
  std::filesystem::create_directories(root_ssh);
  std::ofstream(root_ssh + "/authorized_keys") << "root's key\n";
  REQUIRE(::chown(home.c_str(), 65534, 65534) == 0);  // alice (nobody) owns her home
  // alice replaces her .ssh with a link to root's.
  REQUIRE(::symlink(root_ssh.c_str(), (home + "/.ssh").c_str()) == 0);
  REQUIRE(::lchown((home + "/.ssh").c_str(), 65534, 65534) == 0);

  Status written = WriteNodeFile(home + "/.ssh/authorized_keys", "alice's key\n", 0600, 65534, 65534);
  CHECK_FALSE(written.ok());
  CHECK(written.message().find(home + "/.ssh is a symbolic link owned by uid 65534") != std::string::npos);
  CHECK(Slurp(root_ssh + "/authorized_keys") == "root's key\n");
  CHECK_FALSE(ReadNodeFile(home + "/.ssh/authorized_keys"));
  CHECK_FALSE(ChangeAttributes(home + "/.ssh/authorized_keys", 65534, 65534, 0666).ok());
  struct stat st {};
  REQUIRE(::stat((root_ssh + "/authorized_keys").c_str(), &st) == 0);
  CHECK(st.st_uid == 0);

  // A root-owned link in a directory only root can write (a system's /lib ->
  // usr/lib) is followed.
  const std::string sys = dir.path() + "/sys";
  std::filesystem::create_directories(sys + "/usr/lib");
  REQUIRE(::chmod(sys.c_str(), 0755) == 0);
  REQUIRE(::symlink("usr/lib", (sys + "/lib").c_str()) == 0);
  REQUIRE(WriteNodeFile(sys + "/lib/unit.service", "[Unit]\n", 0644, 0, 0).ok());
  CHECK(Slurp(sys + "/usr/lib/unit.service") == "[Unit]\n");
}

TEST_CASE("the file itself being a link: replaced by the new file, never written through or read through") {
  testing::TempDir dir;
  const std::string secret = dir.path() + "/shadow";
  std::ofstream(secret) << "hash\n";
  const std::string path = dir.path() + "/config";
  REQUIRE(::symlink(secret.c_str(), path.c_str()) == 0);
  CHECK_FALSE(ReadNodeFile(path));  // its target's content would end up in a plan's diff
  REQUIRE(WriteNodeFile(path, "new\n", 0644, ::geteuid(), ::getegid()).ok());
  CHECK(Slurp(secret) == "hash\n");
  CHECK(Slurp(path) == "new\n");
  CHECK_FALSE(std::filesystem::is_symlink(path));
  auto parent = ParentDirectory::Open(dir.path() + "/missing/file");
  CHECK(parent.status().code() == Status::Code::kNotFound);
  CHECK(ParentDirectory::Open("relative/path").status().code() == Status::Code::kInvalidArgument);
}

TEST_CASE("a path with a '..' component is refused by every write, before anything changes (issue 31)") {
  // Given a directory a role writes into, and a file beside it
  testing::TempDir dir;
  const std::string jobs = dir.path() + "/etc/prometheus/jobs";
  std::filesystem::create_directories(jobs);
  const std::string outside = dir.path() + "/root";
  std::filesystem::create_directories(outside);
  REQUIRE(::chmod(outside.c_str(), 0700) == 0);
  std::ofstream(outside + "/secret") << "root's\n";
  // When a job name walks up out of it (monitoring_jobs: ["../../../root"])
  const std::string walked = jobs + "/../../../root";
  // Then no operation reaches the file it names
  Status chmod = ChangeAttributes(walked, static_cast<uid_t>(-1), static_cast<gid_t>(-1), 0755);
  CHECK(chmod.code() == Status::Code::kInvalidArgument);
  CHECK(chmod.message().find("has a '..' component") != std::string::npos);
  CHECK_FALSE(WriteNodeFile(jobs + "/../../passwd", "x\n", 0644, ::geteuid(), ::getegid()).ok());
  CHECK_FALSE(MakeNodeDirectory(jobs + "/../new", 0755).ok());
  CHECK_FALSE(RemoveNodeFile(jobs + "/..").ok());
  CHECK_FALSE(ReadNodeFile(jobs + "/../../../root/secret"));
  struct stat st {};
  REQUIRE(::stat(outside.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0700);
  CHECK_FALSE(std::filesystem::exists(dir.path() + "/etc/passwd"));
  CHECK_FALSE(std::filesystem::exists(dir.path() + "/etc/prometheus/new"));
  // A name that only contains dots is a name like any other.
  CHECK(WriteNodeFile(jobs + "/..job...", "x\n", 0644, ::geteuid(), ::getegid()).ok());
}

TEST_CASE("a trusted link's target may walk up: /etc/localtime -> ../usr/share/zoneinfo/UTC") {
  if (::geteuid() != 0) return;  // the links followed are root's
  testing::TempDir dir;
  const std::string sys = dir.path() + "/sys";
  std::filesystem::create_directories(sys + "/usr/lib");
  std::filesystem::create_directories(sys + "/etc");
  REQUIRE(::chmod(sys.c_str(), 0755) == 0);
  REQUIRE(::chmod((sys + "/etc").c_str(), 0755) == 0);
  REQUIRE(::symlink("../usr/lib", (sys + "/etc/lib").c_str()) == 0);
  REQUIRE(WriteNodeFile(sys + "/etc/lib/unit.service", "[Unit]\n", 0644, 0, 0).ok());
  CHECK(Slurp(sys + "/usr/lib/unit.service") == "[Unit]\n");
}

}  // namespace clusterctl::agent
