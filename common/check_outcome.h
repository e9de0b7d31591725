// What a validation check judged and on what: shared by the node's verdicts
// (clusterctl_node_checks, also on the node in clusterctl-health), the
// state's validation rows and the daemon's views of them, so an outcome
// stays an enum from the verdict to the status page. Their words are
// elsewhere: the report's in controller/validate/check_result.h
// (ToString), the state's in controller/state/stored_words.h.
#pragma once

namespace clusterctl {

enum class CheckScope { kCluster, kNode, kPair };
enum class CheckOutcome { kPass, kFail, kSkip };

}  // namespace clusterctl
