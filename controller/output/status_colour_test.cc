#include "controller/output/status_colour.h"

#include <doctest/doctest.h>

namespace clusterctl {

TEST_CASE("colour: auto on a terminal without NO_COLOR; always and never are obeyed") {
  CHECK(UseColour(ColourChoice::kAuto, true, nullptr));
  CHECK(UseColour(ColourChoice::kAuto, true, ""));
  CHECK_FALSE(UseColour(ColourChoice::kAuto, true, "1"));
  CHECK_FALSE(UseColour(ColourChoice::kAuto, false, nullptr));
  CHECK(UseColour(ColourChoice::kAlways, false, "1"));
  CHECK_FALSE(UseColour(ColourChoice::kNever, true, nullptr));
  CHECK(ParseColourChoice("always") == ColourChoice::kAlways);
  CHECK_FALSE(ParseColourChoice("yes").has_value());
}

TEST_CASE("colour wraps the status words only, and only when enabled") {
  CHECK(ColourStatus("ok", true) == "\033[32mok\033[0m");
  CHECK(ColourStatus("FAILED", true) == "\033[31mFAILED\033[0m");
  CHECK(ColourStatus("unreachable", true) == "\033[35munreachable\033[0m");
  CHECK(ColourStatus("changed", true) == "\033[33mchanged\033[0m");
  CHECK(ColourStatus("skipped", true) == "skipped");
  CHECK(ColourStatus("failed", false) == "failed");
}

}  // namespace clusterctl
