// RoleBoard: which roles have finished on which hosts during a run, so a role
// that waits for another role on other hosts (slurmd after slurmctld) can
// wait for exactly that and nothing else.
//
// Thread-safe. A host that needs no work for a role (converged, not
// contacted) is marked done at once; a host that failed or was unreachable is
// marked failed, and whoever waits on it fails with that reason instead of
// waiting forever.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>  // Boost.Asio coroutine headers use std::exchange without including it
#include <vector>

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>

#include "common/status.h"

namespace clusterctl {

class RoleBoard {
 public:
  // Hosts expected to report each role in this run; waits for any other
  // host are already satisfied (it is not part of this run).
  void Expect(const std::string& role, const std::string& host);
  void MarkDone(const std::string& role, const std::string& host);
  void MarkFailed(const std::string& role, const std::string& host, const std::string& why);
  // Marks every role of `host` failed (a host that could not be reached).
  void MarkHostFailed(const std::string& host, const std::string& why);

  // Completes with Ok once `role` is done on every host of `hosts` that runs
  // it in this run, or with the first failure.
  template <class CompletionToken>
  auto WaitFor(std::string role, std::vector<std::string> hosts, CompletionToken&& token) {
    return boost::asio::async_initiate<CompletionToken, void(Status)>(
        [this, role = std::move(role), hosts = std::move(hosts)](auto handler) mutable {
          auto shared = std::make_shared<decltype(handler)>(std::move(handler));
          auto work = std::make_shared<decltype(boost::asio::make_work_guard(
              boost::asio::get_associated_executor(*shared)))>(
              boost::asio::make_work_guard(boost::asio::get_associated_executor(*shared)));
          AddWaiter(std::move(role), std::move(hosts), [shared, work](Status status) mutable {
            auto executor = boost::asio::get_associated_executor(*shared);
            boost::asio::post(executor, [shared, work, status]() mutable {
              (*shared)(status);
              work->reset();
            });
          });
        },
        token);
  }

 private:
  enum class State { kPending, kDone, kFailed };
  struct Waiter {
    std::string role;
    std::vector<std::string> hosts;
    std::function<void(Status)> done;
  };
  void AddWaiter(std::string role, std::vector<std::string> hosts, std::function<void(Status)> done);
  // REQUIRES: mutex_ held. Returns nullopt while still pending.
  std::optional<Status> Evaluate(const Waiter& waiter) const;
  void Settle();

  std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, State> states_;  // (role, host)
  std::map<std::pair<std::string, std::string>, std::string> failures_;
  std::vector<Waiter> waiters_;
};

}  // namespace clusterctl
