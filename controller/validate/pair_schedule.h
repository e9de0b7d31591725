// Which node pairs run the bandwidth test, and when: every node is tested
// with its neighbour in a ring (node i with node i+1, the last with the
// first), so each node is once server and once client and a bad link shows
// up in the two pairs that share it. Rounds never put a node in two pairs at
// once (its HCA would be shared and both results would be low).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace clusterctl {

using NodePair = std::pair<size_t, size_t>;  // (server, client) as indexes

// Ring pairs over n nodes (none for n < 2, one for n == 2).
std::vector<NodePair> RingPairs(size_t n);

// Splits pairs into rounds in which no node appears twice (greedy, in order).
std::vector<std::vector<NodePair>> ScheduleRounds(const std::vector<NodePair>& pairs);

}  // namespace clusterctl
