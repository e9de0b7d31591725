#include "controller/cli/run_command.h"

#include <doctest/doctest.h>

#include <sstream>

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

TEST_CASE("run's output shows a node's escape sequences and keeps its lines (issue 31)") {
  std::ostringstream out;
  PrintOutputGroups({{{"node01"}, "\x1b]0;owned\x07\x1b[2Jline 1\n\tline 2", 3}}, out);
  const std::string rule(23, '-');
  CHECK(out.str() ==
        rule + "\n"
        "node01 (1 host, exit 3)\n" +
        rule + "\n"
        "\\x1b]0;owned\\x07\\x1b[2Jline 1\n\tline 2\n");
  CHECK(out.str().find('\x1b') == std::string::npos);
}

}  // namespace clusterctl
