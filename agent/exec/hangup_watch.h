// HangupWatch: tells whether the controller's end of the agent's session has
// closed (the controller exited, was killed, or abandoned a request after
// its stop grace), so that what the agent runs for it stops too instead of
// running on unattended (docs/agent.md, "When the controller goes away").
//
// It watches a descriptor the controller writes to (the agent's stdin, a
// pipe or socket from sshd) for hang-up only: POLLHUP (a pipe's writers all
// closed, a socket closed both ways) or POLLRDHUP (a socket's peer shut down
// its writing side). Pending data is never read here, so the protocol's
// frames stay for the agent's own reader. A watch with no descriptor (the
// default, and in unit tests of other parts) never reports a hang-up.
#pragma once

#include <poll.h>

namespace clusterctl::agent {

class HangupWatch {
 public:
  HangupWatch() = default;
  explicit HangupWatch(int fd) : fd_(fd) {}

  bool active() const { return fd_ >= 0; }
  // A pollfd that wakes on hang-up only (fd -1, ignored by poll, when inactive).
  pollfd PollEntry() const { return {fd_, static_cast<short>(POLLRDHUP), 0}; }
  static bool IsHangup(short revents) { return (revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL)) != 0; }
  // Looks now, without waiting.
  bool Reported() const {
    if (fd_ < 0) return false;
    pollfd entry = PollEntry();
    return ::poll(&entry, 1, 0) > 0 && IsHangup(entry.revents);
  }

 private:
  int fd_ = -1;
};

}  // namespace clusterctl::agent
