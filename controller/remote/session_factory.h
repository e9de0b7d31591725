// SessionFactory: where the engine gets its agent sessions and its
// concurrency. The real one (RemoteRunner) reaches nodes over SSH; unit tests
// use a fleet of fake nodes (controller/engine/fake_fleet.h). The deploy and
// validate engines depend only on this interface.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/cancel_token.h"
#include "controller/remote/agent_session.h"
#include "inventory/model.h"

namespace clusterctl {

struct OpenedSession {
  std::unique_ptr<AgentSession> session;  // set on success
  Status status;                          // why not, otherwise
  bool unreachable = false;               // could not talk to the host at all (vs. refused/failed after)
  std::vector<std::string> notes;         // e.g. "new host key ... recorded", "installed the agent"
};

class SessionFactory {
 public:
  virtual ~SessionFactory() = default;

  // Connects to `host` and starts its agent. `cancel` (optional) abandons
  // the session's requests once a stop's grace has passed.
  virtual Task<OpenedSession> Open(const Host& host, const CancelToken* cancel) = 0;

  // Runs body(i) for every i in [0, count), at most `forks` at a time, each
  // on its own strand; returns when all have finished. An exception that
  // escapes body(i) is swallowed here (callers keep their own barrier that
  // turns it into that host's failure). REQUIRES: not called from one of
  // the factory's own coroutines.
  virtual void ForEach(size_t count, const std::function<Task<void>(size_t)>& body) = 0;
};

}  // namespace clusterctl
