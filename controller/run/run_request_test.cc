// The run request's own helpers (run_request.h).
#include <doctest/doctest.h>

#include "controller/run/run_request.h"

namespace clusterctl {
namespace {

TEST_CASE("--batch takes a host count or a percentage") {
  CHECK(ParseBatchSize("", 8) == 8u);
  CHECK(ParseBatchSize("3", 8) == 3u);
  CHECK(ParseBatchSize("20", 8) == 8u);
  CHECK(ParseBatchSize("25%", 8) == 2u);
  CHECK(ParseBatchSize("10%", 8) == 1u);  // at least one host
  CHECK(ParseBatchSize("100%", 1000) == 1000u);
  CHECK_FALSE(ParseBatchSize("0", 8));
  CHECK_FALSE(ParseBatchSize("150%", 8));
  CHECK_FALSE(ParseBatchSize("x", 8));
  CHECK_FALSE(ParseBatchSize("-1", 8));
}

}  // namespace
}  // namespace clusterctl
