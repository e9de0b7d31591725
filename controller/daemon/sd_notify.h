// systemd's readiness protocol without libsystemd: one datagram to the
// socket named by $NOTIFY_SOCKET (a path, or '@' for the abstract
// namespace). Without the variable (not started by systemd) it does nothing.
#pragma once

#include <string>

namespace clusterctl {

// Sends e.g. "READY=1", "STOPPING=1", "STATUS=serving 12 hosts". Returns
// false when there is a socket and sending failed.
bool NotifySystemd(const std::string& state);

}  // namespace clusterctl
