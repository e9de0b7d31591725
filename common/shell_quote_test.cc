#include "common/shell_quote.h"

#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace clusterctl {

TEST_CASE("ShellQuote survives a real shell, whatever the bytes") {
  const std::string hostile[] = {"plain", "it's", "$(reboot)", "`id`", "a b\tc", "x\ny", "';rm -rf /;'", "\\\"", ""};
  for (const std::string& word : hostile) {
    CAPTURE(word);
    std::string command = "printf %s " + ShellQuote(word);
    FILE* pipe = ::popen(command.c_str(), "r");
    REQUIRE(pipe);
    std::string out;
    char buffer[256];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
    CHECK(::pclose(pipe) == 0);
    CHECK(out == word);
  }
}

TEST_CASE("ShellJoin quotes every word") { CHECK(ShellJoin({"a", "b c"}) == "'a' 'b c'"); }

}  // namespace clusterctl
