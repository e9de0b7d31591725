#include "controller/daemon/connection_limits.h"

#include <doctest/doctest.h>

namespace clusterctl {
namespace {

using Slot = ConnectionLimits::Slot;

TEST_CASE("connection limits: one address holds its share of the ordinary slots, then the reserve, then nothing") {
  ConnectionLimits limits({.ordinary = 4, .per_address = 2, .reserved = 1});
  CHECK(limits.Admit("10.0.0.1").slot == Slot::kOrdinary);
  CHECK(limits.Admit("10.0.0.1").slot == Slot::kOrdinary);
  const auto third = limits.Admit("10.0.0.1");
  CHECK(third.slot == Slot::kReserved);
  limits.Spoke(third.id);  // it spoke: it no longer gives way
  const auto refused = limits.Admit("10.0.0.1");
  CHECK(refused.slot == Slot::kRefused);
  CHECK(refused.id == 0);
  CHECK(limits.Admit("10.0.0.2").slot == Slot::kOrdinary);  // another address has its own share
  CHECK(limits.ordinary_in_use() == 3);
}

TEST_CASE("connection limits: past the ordinary slots every address goes to the reserve") {
  ConnectionLimits limits({.ordinary = 2, .per_address = 2, .reserved = 2});
  const auto a = limits.Admit("10.0.0.1");
  limits.Admit("10.0.0.2");
  CHECK(limits.Admit("10.0.0.3").slot == Slot::kReserved);
  limits.Release(a.id);
  CHECK(limits.Admit("10.0.0.3").slot == Slot::kOrdinary);  // a released slot is free again
  CHECK(limits.ordinary_in_use() == 2);
  CHECK(limits.reserved_in_use() == 1);
}

TEST_CASE("connection limits: a full reserve's oldest silent connection gives way to a new one") {
  ConnectionLimits limits({.ordinary = 0, .per_address = 0, .reserved = 2});
  const auto first = limits.Admit("10.0.0.1");
  const auto second = limits.Admit("10.0.0.1");
  limits.Spoke(second.id);
  const auto third = limits.Admit("10.0.0.1");
  CHECK(third.slot == Slot::kReserved);
  CHECK(third.evicted == first.id);
  CHECK(limits.reserved_in_use() == 2);
  limits.Release(first.id);  // the evicted connection ends later: nothing is counted twice
  CHECK(limits.reserved_in_use() == 2);
  limits.Spoke(third.id);
  CHECK(limits.Admit("10.0.0.1").slot == Slot::kRefused);  // both spoke: nobody gives way
  limits.Release(second.id);
  limits.Release(third.id);
  CHECK(limits.reserved_in_use() == 0);
  CHECK(limits.Admit("10.0.0.1").slot == Slot::kReserved);
}

}  // namespace
}  // namespace clusterctl
