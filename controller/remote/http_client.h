// One HTTP/1.1 request from a host's coroutine (the controller as a client
// of a service on the cluster: Alertmanager's and Prometheus's APIs). Plain
// HTTP on the management network, no redirects, no proxies; connecting,
// sending and reading the reply within one deadline (a host name is
// resolved before, by the system's resolver: inventory addresses are
// usually IP literals); a reply body over 1 MiB is refused. Every failure
// is a Status naming where it happened (no exception leaves this adapter).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "common/status.h"
#include "controller/ssh/ssh_session.h"  // Task

namespace clusterctl {

struct HttpTarget {
  std::string address;  // a host name or IP address (IPv6 without brackets)
  uint16_t port = 80;
};

struct HttpReply {
  int status = 0;
  std::string body;
};

// `method` `path` with `body` (sent as application/json when not empty).
Task<Result<HttpReply>> HttpRequest(HttpTarget target, std::string method, std::string path, std::string body,
                                    std::chrono::milliseconds timeout);

}  // namespace clusterctl
