#include "common/log.h"

#include <doctest/doctest.h>

#include <sstream>
#include <thread>
#include <vector>

namespace clusterctl {

TEST_CASE("log: the journal prefix only when $JOURNAL_STREAM names this very stream") {
  CHECK(IsJournalStream("8:12345", 8, 12345));
  CHECK_FALSE(IsJournalStream("8:12345", 8, 12346));  // inherited, but stderr was redirected
  CHECK_FALSE(IsJournalStream("9:12345", 8, 12345));
  CHECK_FALSE(IsJournalStream("", 8, 12345));          // not under systemd
  for (const char* broken : {"8", "8:", ":12345", "8:12345x", "x8:12345", "8:-1", "8:12345:1", " 8:12345"}) {
    CAPTURE(broken);
    CHECK_FALSE(IsJournalStream(broken, 8, 12345));
  }
}

TEST_CASE("log: levels parse by name and map to sd-daemon priorities") {
  CHECK(ParseLogLevel("error") == LogLevel::kError);
  CHECK(ParseLogLevel("warning") == LogLevel::kWarning);
  CHECK(ParseLogLevel("info") == LogLevel::kInfo);
  CHECK(ParseLogLevel("debug") == LogLevel::kDebug);
  CHECK_FALSE(ParseLogLevel("bogus"));
  CHECK_FALSE(ParseLogLevel("ERROR"));
  CHECK(JournalPriority(LogLevel::kError) == 3);
  CHECK(JournalPriority(LogLevel::kWarning) == 4);
  CHECK(JournalPriority(LogLevel::kInfo) == 6);
  CHECK(JournalPriority(LogLevel::kDebug) == 7);
}

TEST_CASE("log: a level shows itself and what is more severe, nothing else") {
  std::ostringstream out;
  Logger log(out, LogLevel::kWarning);
  log.Debug("d");
  log.Info("i");
  log.Warning("w");
  log.Error("e");
  CHECK(out.str() == "w\ne\n");
  CHECK(log.Enabled(LogLevel::kWarning));
  CHECK_FALSE(log.Enabled(LogLevel::kInfo));

  out.str("");
  log.SetLevel(LogLevel::kDebug);
  log.Debug("d");
  CHECK(out.str() == "d\n");
  out.str("");
  log.SetLevel(LogLevel::kError);
  log.Warning("w");
  log.Error("e");
  CHECK(out.str() == "e\n");
  CHECK(log.level() == LogLevel::kError);
}

TEST_CASE("log: in the journal every line, of a message of several too, carries its priority") {
  std::ostringstream out;
  Logger log(out, LogLevel::kDebug, /*journal_priorities=*/true);
  log.Error("broken");
  log.Warning("first\nsecond\n");
  log.Info("i");
  log.Debug("d");
  CHECK(out.str() == "<3>broken\n<4>first\n<4>second\n<6>i\n<7>d\n");
}

TEST_CASE("log: outside the journal the text is the message alone, bytes kept") {
  std::ostringstream out;
  Logger log(out);
  log.Info("caf\xe9 \xff");
  log.Info("");
  CHECK(out.str() == "caf\xe9 \xff\n\n");
}

TEST_CASE("log: lines from several threads never interleave") {
  std::ostringstream out;
  Logger log(out);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&log, t] {
      for (int i = 0; i < 200; ++i) log.Info(std::string(50, static_cast<char>('a' + t)));
    });
  }
  for (std::thread& t : threads) t.join();
  std::istringstream lines(out.str());
  int count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    REQUIRE(line.size() == 50);
    CHECK(line.find_first_not_of(line[0]) == std::string::npos);
  }
  CHECK(count == 800);
}

}  // namespace clusterctl
