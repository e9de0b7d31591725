// users.consistent: getent's entries against the inventory's directory;
// a node resolving a user differently or not at all fails by name; a
// hostile or garbled getent answer is no reading.
#include "controller/validate/checks/users_consistent.h"

#include <doctest/doctest.h>

#include "controller/validate/checks/spec_test_util.h"

namespace clusterctl {
namespace {

testing::SpecBench DirectoryBench() {
  testing::SpecBench bench;
  bench.role.directory_client = true;
  bench.vars["directory_users"] = nlohmann::json::parse(
      R"([{"name": "alice", "uid": 5001, "gid": 5000}, {"name": "bob", "uid": 5002, "gid": 5000, "shell": "/bin/sh"}])");
  return bench;
}

constexpr const char* kBoth =
    "alice:*:5001:5000:Alice:/home/alice:/bin/bash\n"
    "bob:*:5002:5000::/home/bob:/bin/sh\n";

}  // namespace

TEST_CASE("users.consistent asks getent for every directory user, after --") {
  testing::SpecBench bench = DirectoryBench();
  CHECK(bench.Command("users.consistent", "getent passwd (directory users)") == Argv{"getent", "passwd", "--", "alice", "bob"});
}

TEST_CASE("users.consistent passes when every user has the directory's UID and GID") {
  testing::SpecBench bench = DirectoryBench();
  bench.Reads("getent passwd (directory users)", kBoth);
  CheckResult r = bench.Judge("users.consistent");
  CHECK_MESSAGE(r.outcome == CheckOutcome::kPass, r.detail);
  CHECK(r.measured == "2/2 users");
}

TEST_CASE("users.consistent names the node and the user that differ or do not resolve") {
  testing::SpecBench bench = DirectoryBench();
  SUBCASE("another UID (a local account shadowing the directory's)") {
    bench.Reads("getent passwd (directory users)",
                "alice:x:1001:1001::/home/alice:/bin/bash\nbob:*:5002:5000::/home/bob:/bin/sh\n");
    CheckResult r = bench.Judge("users.consistent");
    REQUIRE(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == "alice is 1001:1001 here, 5001:5000 in the directory");
  }
  SUBCASE("missing (sssd down, getent exits 2)") {
    bench.Reads("getent passwd (directory users)", "alice:*:5001:5000:Alice:/home/alice:/bin/bash\n", 2);
    CheckResult r = bench.Judge("users.consistent");
    REQUIRE(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail == "bob does not resolve");
    CHECK(r.measured == "1/2 users");
  }
}

TEST_CASE("users.consistent: no reading, no pass") {
  testing::SpecBench bench = DirectoryBench();
  SUBCASE("getent did not run") {
    CHECK(bench.Judge("users.consistent").outcome == CheckOutcome::kFail);
  }
  for (const char* hostile : {"alice:*:5001:5000:Alice:/home/alice\n",               // six fields
                              "alice:*:5001:-1:Alice:/home/alice:/bin/bash\n",       // not a number
                              "root:x:0:0:root:/root:/bin/bash\n",                   // not asked about
                              "alice:*:5001:5000::/h:/s\nalice:*:5001:5000::/h:/s\n",  // twice
                              "alice:*:99999999999:5000::/h:/s\n"}) {                // too long
    CAPTURE(hostile);
    bench.Reads("getent passwd (directory users)", hostile);
    CheckResult r = bench.Judge("users.consistent");
    CHECK(r.outcome == CheckOutcome::kFail);
    CHECK(r.detail.find("does not resolve") == std::string::npos);  // refused as output, not judged
  }
  bench.Reads("getent passwd (directory users)", std::string(2 << 20, 'a'));
  CHECK(bench.Judge("users.consistent").detail.find("not passwd entries") != std::string::npos);
  bench.Reads("getent passwd (directory users)", "", 1, "Unknown database: passwd");
  CHECK(bench.Judge("users.consistent").outcome == CheckOutcome::kFail);
  CHECK(bench.Judge("users.consistent").detail.find("does not resolve") == std::string::npos);
}

TEST_CASE("users.consistent is skipped without directory users or off the sssd role's hosts") {
  testing::SpecBench bench = DirectoryBench();
  bench.vars.erase("directory_users");
  CHECK(bench.Judge("users.consistent").detail == "no directory_users in the inventory");
  testing::SpecBench off = DirectoryBench();
  off.role.directory_client = false;
  CHECK(off.Judge("users.consistent").outcome == CheckOutcome::kSkip);
}

TEST_CASE("DirectoryUsers: the named entries, a UID or GID that is no integer as -1") {
  const nlohmann::json vars = {{"directory_users",
                                {{{"name", "carol"}, {"uid", 5001}, {"gid", 5000}}, {{"uid", 5002}}, {{"name", "dave"}, {"uid", "x"}}}}};
  const std::vector<checks::DirectoryUser> users = checks::DirectoryUsers(vars);
  REQUIRE(users.size() == 2);
  CHECK(users[0].name == "carol");
  CHECK(users[0].uid == 5001);
  CHECK(users[0].gid == 5000);
  CHECK(users[1].uid == -1);
}

}  // namespace clusterctl
