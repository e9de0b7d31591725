#include "controller/output/table.h"

#include <doctest/doctest.h>

#include <sstream>

namespace clusterctl {

TEST_CASE("TextTable pads columns to the widest cell and trims trailing space") {
  TextTable table({"HOST", "STATE"});
  table.AddRow({"gpu[001-128]", "ok"});
  table.AddRow({"head", "never deployed"});
  std::ostringstream out;
  table.Print(out);
  CHECK(out.str() ==
        "HOST          STATE\n"
        "gpu[001-128]  ok\n"
        "head          never deployed\n");
}

TEST_CASE("TextTable shows control characters in cells, so a node's text cannot drive the terminal (issue 31)") {
  TextTable table({"HOST", "OS"});
  table.AddRow({"node01", "debian\x1b]0;owned\x07\n12"});
  std::ostringstream out;
  table.Print(out);
  CHECK(out.str() ==
        "HOST    OS\n"
        "node01  debian\\x1b]0;owned\\x07\\x0a12\n");
}

TEST_CASE("DisplayWidth counts code points") { CHECK(DisplayWidth("µs→") == 3); }

}  // namespace clusterctl
