#include "controller/validate/pair_schedule.h"

#include <set>

namespace clusterctl {

std::vector<NodePair> RingPairs(size_t n) {
  std::vector<NodePair> pairs;
  if (n < 2) return pairs;
  if (n == 2) return {{0, 1}};
  for (size_t i = 0; i < n; ++i) pairs.emplace_back(i, (i + 1) % n);
  return pairs;
}

std::vector<std::vector<NodePair>> ScheduleRounds(const std::vector<NodePair>& pairs) {
  std::vector<std::vector<NodePair>> rounds;
  std::vector<std::set<size_t>> busy;
  for (const NodePair& p : pairs) {
    size_t r = 0;
    while (r < rounds.size() && (busy[r].count(p.first) || busy[r].count(p.second))) ++r;
    if (r == rounds.size()) {
      rounds.emplace_back();
      busy.emplace_back();
    }
    rounds[r].push_back(p);
    busy[r].insert(p.first);
    busy[r].insert(p.second);
  }
  return rounds;
}

}  // namespace clusterctl
