// StateWriter: the one thread that writes the state store during a run.
//
// Host coroutines hand it writes; it runs whatever has queued up in one
// BEGIN IMMEDIATE transaction and commits (group commit, one fsync for many
// hosts). Writes that must be durable before an action (an intent before the
// change that owes it) are awaited with Commit(); others are Post()ed and
// cost the host nothing.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>  // Boost.Asio coroutine headers use std::exchange without including it

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>

#include "controller/engine/deploy_events.h"
#include "controller/state/state_store.h"

namespace clusterctl {

// What the hosts table records for a host's outcome in a deploy; nothing for
// a host skipped or stopped, which keeps its last run's status.
std::optional<HostStatus> RecordedHostStatus(HostOutcome outcome);

class StateWriter {
 public:
  using Write = std::function<Status(StateStore&)>;

  explicit StateWriter(StateStore& store);
  ~StateWriter();  // writes what is queued, then stops

  void Post(Write write);

  // Completes with the write's status once it is committed.
  template <class CompletionToken>
  auto Commit(Write write, CompletionToken&& token) {
    return boost::asio::async_initiate<CompletionToken, void(Status)>(
        [this, write = std::move(write)](auto handler) mutable {
          auto shared = std::make_shared<decltype(handler)>(std::move(handler));
          auto work = std::make_shared<decltype(boost::asio::make_work_guard(
              boost::asio::get_associated_executor(*shared)))>(
              boost::asio::make_work_guard(boost::asio::get_associated_executor(*shared)));
          Enqueue(std::move(write), [shared, work](Status status) mutable {
            auto executor = boost::asio::get_associated_executor(*shared);
            boost::asio::post(executor, [shared, work, status]() mutable {
              (*shared)(status);
              work->reset();
            });
          });
        },
        token);
  }

  // Blocks until everything queued so far is committed; the first error seen.
  Status Flush();

 private:
  struct Pending {
    Write write;
    std::function<void(Status)> done;  // may be empty
  };
  void Enqueue(Write write, std::function<void(Status)> done);
  void Loop();

  StateStore& store_;
  std::mutex mutex_;
  std::condition_variable wake_, drained_;
  std::deque<Pending> queue_;
  bool busy_ = false;
  bool stopping_ = false;
  Status first_error_;
  std::thread thread_;
};

}  // namespace clusterctl
