#include "controller/cli/run_command.h"

#include <doctest/doctest.h>

namespace clusterctl {

TEST_CASE("identical outputs collapse into one group; exit codes split groups") {
  auto groups = GroupOutputs({{"node02", {"6.1.0\n", 0}},
                              {"node03", {"6.1.0\n", 0}},
                              {"node04", {"6.1.0\n", 0}},
                              {"node01", {"6.1.0\n", 1}},
                              {"node05", {"5.10.0\n", 0}}});
  REQUIRE(groups.size() == 3);
  CHECK(groups[0].hosts == std::vector<std::string>{"node02", "node03", "node04"});
  CHECK(groups[0].exit_code == 0);
  CHECK(groups[1].hosts.size() == 1);
  CHECK(groups[2].hosts.size() == 1);
}

}  // namespace clusterctl
