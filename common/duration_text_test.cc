#include "common/duration_text.h"

#include <doctest/doctest.h>

namespace clusterctl {

TEST_CASE("durations: a plain number is seconds, units s m h d, and sums of them") {
  CHECK(*ParseDurationSeconds("90") == 90);
  CHECK(*ParseDurationSeconds("0") == 0);
  CHECK(*ParseDurationSeconds("60s") == 60);
  CHECK(*ParseDurationSeconds("5m") == 300);
  CHECK(*ParseDurationSeconds("1h") == 3600);
  CHECK(*ParseDurationSeconds("2d") == 172800);
  CHECK(*ParseDurationSeconds("1h30m") == 5400);
  CHECK(*ParseDurationSeconds("1m30s") == 90);
}

TEST_CASE("durations: empty, signs, unknown or missing units and overflow are refused with what is accepted") {
  for (const char* bad : {"", "-5", "+5", "-5m", "5x", "5ms", "m", "1h30", "1.5h", " 5", "5 m", "99999999999",
                          "2147483648", "24856d", "9999999999999999999999s"}) {
    CAPTURE(bad);
    Result<int64_t> parsed = ParseDurationSeconds(bad);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.status().code() == Status::Code::kInvalidArgument);
    CHECK(parsed.status().message().find("is not a duration") != std::string::npos);
    CHECK(parsed.status().message().find("1h30m") != std::string::npos);
  }
  CHECK(ParseDurationSeconds("").status().message().find("empty") != std::string::npos);
  CHECK(ParseDurationSeconds("5x").status().message().find("unknown unit 'x'") != std::string::npos);
  CHECK(ParseDurationSeconds("-5").status().message().find("sign") != std::string::npos);
  CHECK(ParseDurationSeconds("24856d").status().message().find("too long") != std::string::npos);
  CHECK(*ParseDurationSeconds("2147483647") == 2147483647);
}

TEST_CASE("durations are written back in the largest units, and read back to the same seconds") {
  CHECK(FormatDurationSeconds(0) == "0s");
  CHECK(FormatDurationSeconds(90) == "1m30s");
  CHECK(FormatDurationSeconds(3600) == "1h");
  CHECK(FormatDurationSeconds(604800) == "7d");
  CHECK(FormatDurationSeconds(90061) == "1d1h1m1s");
  for (int64_t seconds : {0, 1, 59, 60, 61, 3599, 86400, 2147483647}) {
    CHECK(*ParseDurationSeconds(FormatDurationSeconds(seconds)) == seconds);
  }
}

}  // namespace clusterctl
