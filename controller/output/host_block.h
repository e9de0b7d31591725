// One host's part of a deploy's or plan's terminal report: printed once,
// when the host is done, so that hosts appear in the order they finished
// and the recap only counts and lists them.
//
//   node03 UNREACHABLE: 10.0.0.3:22: connect: Connection refused
//   node04 FAILED always-fails/broken step: sh exited with status 3
//       command: sh -c 'exit 3'
//         | (the last lines of its output)
//   node05: ok (changed=2, failed=0)          plain lines of a deploy only
//     changed chrony/config (content differs)
#pragma once

#include <string>

#include "controller/engine/deploy_events.h"

namespace clusterctl {

struct HostBlockStyle {
  bool check = false;  // a plan: hosts that did not fail are in the plan, not here
  bool plain = false;  // not a terminal: every host's outcome and changes
  bool colour = false;  // status words coloured (output/status_colour.h)
};

// The block's text (lines ending in "\n"); empty when there is nothing to
// say about the host in this style.
std::string HostBlock(const HostReport& report, HostBlockStyle style);

// Whether the host did not get through: it failed or could not be reached.
bool FailedOrUnreachable(const HostReport& report);

}  // namespace clusterctl
