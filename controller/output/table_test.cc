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


TEST_CASE("TextTable fits a width: the widest column is narrowed and its cells end in an ellipsis (issue 53)") {
  TextTable table({"HOST", "STATE", "DETAIL"});
  table.AddRow({"node01", "unreachable", std::string(400, 'x')});
  table.AddRow({"node02", "ok", "fine"});
  std::ostringstream out;
  table.Print(out, "", 40);
  std::istringstream lines(out.str());
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    ++count;
    CHECK(DisplayWidth(line) <= 40);
  }
  CHECK(count == 3);
  CHECK(out.str().find("node01  unreachable  " + std::string(18, 'x') + "\u2026\n") != std::string::npos);
  CHECK(out.str().find("node02  ok           fine\n") != std::string::npos);
  std::ostringstream wide;
  table.Print(wide);  // no width: every cell whole
  CHECK(wide.str().find(std::string(400, 'x')) != std::string::npos);
}

TEST_CASE("a status-like table of seven columns fits 60 columns (each column may be cut to 6, its header too)") {
  TextTable table({"HOST", "ADDRESS", "STATE", "SINCE", "GROUPS", "VALIDATION", "DETAIL"});
  table.AddRow({"node01", "127.0.0.2", "unreachable", "2026-11-29 14:30", "controller", "-", "127.0.0.2:1: refused"});
  std::ostringstream out;
  table.Print(out, "", 60);
  std::istringstream lines(out.str());
  std::string line;
  while (std::getline(lines, line)) CHECK_MESSAGE(DisplayWidth(line) <= 60, line);
  CHECK(out.str().find("\u2026") != std::string::npos);
}

TEST_CASE("CutToWidth counts code points and keeps short text whole") {
  CHECK(CutToWidth("µs→abc", 4) == "µs→\u2026");
  CHECK(CutToWidth("abc", 3) == "abc");
  CHECK(CutToWidth("abc", 0) == "");
}

}  // namespace clusterctl
