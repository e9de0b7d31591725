// The logs view (docs/roles.md, "The logs view"): where each host's rsyslog
// sends its messages, as `host.logs`:
//   server:   the `logs` group's host (the log host), or null;
//   receives: whether this host is the log host (it listens and writes one
//             directory per sending host);
//   target:   where this host forwards: its log_server (a site's own log
//             server) when set, else the log host's address, except on the
//             log host itself (null: it keeps its own messages); null where
//             there is neither;
//   max_sessions (the log host only): imtcp's session limit, twice the
//             hosts forwarding to it rounded up to a thousand, or 200
//             (rsyslog's default) for up to 100 of them;
//   listen (the log host only): the address its TCP input binds, its
//             inventory address (an IPv6 one without brackets);
//   allowed_senders (the log host only): every inventory address (the
//             host's and its interfaces') of the hosts that forward to it,
//             comma-separated as rsyslog's $AllowedSender takes them (IPv6
//             in brackets); empty when none does;
//   senders (the log host only): its lookup table, one {index: address,
//             value: host name} per such address (`last` on the last), the
//             name a line is filed under: from the connection's address,
//             never from what the line says. An address two hosts share is
//             left out (filed as unknown).
// The `logs` group has at most one host (an error names them otherwise);
// a target is checked with the address syntax, so the log host's inventory
// address is held to what log_server is. Pure.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "controller/views/cluster_views.h"
#include "inventory/model.h"

namespace clusterctl {

Result<nlohmann::json> BuildLogsView(const Inventory& inventory, const std::map<std::string, nlohmann::json>& facts,
                                     const ViewInputs& inputs);

}  // namespace clusterctl
