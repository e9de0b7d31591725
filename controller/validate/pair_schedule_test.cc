#include "controller/validate/pair_schedule.h"

#include <doctest/doctest.h>

#include <map>
#include <set>

namespace clusterctl {

TEST_CASE("ring pairs: every node once server and once client; rounds never share a node") {
  CHECK(RingPairs(1).empty());
  CHECK(RingPairs(2) == std::vector<NodePair>{{0, 1}});
  for (size_t n : {3u, 4u, 5u, 8u, 33u}) {
    CAPTURE(n);
    std::vector<NodePair> pairs = RingPairs(n);
    CHECK(pairs.size() == n);
    std::map<size_t, int> server, client;
    for (auto [s, c] : pairs) {
      ++server[s];
      ++client[c];
      CHECK(s != c);
    }
    for (size_t i = 0; i < n; ++i) CHECK((server[i] == 1 && client[i] == 1));
    auto rounds = ScheduleRounds(pairs);
    CHECK(rounds.size() == (n % 2 == 0 ? 2u : 3u));
    size_t scheduled = 0;
    for (const auto& round : rounds) {
      std::set<size_t> seen;
      for (auto [s, c] : round) {
        CHECK(seen.insert(s).second);
        CHECK(seen.insert(c).second);
      }
      scheduled += round.size();
    }
    CHECK(scheduled == n);
  }
}

}  // namespace clusterctl
