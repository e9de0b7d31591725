#include "controller/engine/deploy_run.h"

#include <doctest/doctest.h>

namespace clusterctl {

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

}  // namespace clusterctl
