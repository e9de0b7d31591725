#include "controller/engine/role_board.h"

namespace clusterctl {

void RoleBoard::Expect(const std::string& role, const std::string& host) {
  std::lock_guard<std::mutex> lock(mutex_);
  states_[{role, host}] = State::kPending;
}

void RoleBoard::MarkDone(const std::string& role, const std::string& host) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    states_[{role, host}] = State::kDone;
  }
  Settle();
}

void RoleBoard::MarkFailed(const std::string& role, const std::string& host, const std::string& why) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    states_[{role, host}] = State::kFailed;
    failures_[{role, host}] = why;
  }
  Settle();
}

void RoleBoard::MarkHostFailed(const std::string& host, const std::string& why) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [key, state] : states_) {
      if (key.second == host && state == State::kPending) {
        state = State::kFailed;
        failures_[key] = why;
      }
    }
  }
  Settle();
}

std::optional<Status> RoleBoard::Evaluate(const Waiter& waiter) const {
  for (const std::string& host : waiter.hosts) {
    auto it = states_.find({waiter.role, host});
    if (it == states_.end() || it->second == State::kDone) continue;  // not in this run, or done
    if (it->second == State::kFailed) {
      return Status::FailedPrecondition("role " + waiter.role + " failed on " + host + ": " +
                                        failures_.at({waiter.role, host}));
    }
    return std::nullopt;
  }
  return Status::Ok();
}

void RoleBoard::AddWaiter(std::string role, std::vector<std::string> hosts, std::function<void(Status)> done) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    waiters_.push_back({std::move(role), std::move(hosts), std::move(done)});
  }
  Settle();
}

void RoleBoard::Settle() {
  std::vector<std::pair<std::function<void(Status)>, Status>> ready;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      if (std::optional<Status> result = Evaluate(*it)) {
        ready.emplace_back(std::move(it->done), *result);
        it = waiters_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& [done, status] : ready) done(status);
}

}  // namespace clusterctl
