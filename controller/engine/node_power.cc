#include "controller/engine/node_power.h"

#include <utility>  // Boost.Asio coroutine headers use std::exchange without including it

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace clusterctl {
namespace {

class BmcNodePower final : public NodePower {
 public:
  explicit BmcNodePower(ProcessRunner& runner) : runner_(runner) {}
  ~BmcNodePower() override { pool_.join(); }

  Task<PowerResult> Cycle(const Host& host) override {
    // Runs on the pool; the caller's coroutine resumes on its own executor.
    co_return co_await boost::asio::co_spawn(
        pool_, [this, &host]() -> Task<PowerResult> { co_return PowerCycleHost(host, runner_); },
        boost::asio::use_awaitable);
  }

 private:
  ProcessRunner& runner_;
  boost::asio::thread_pool pool_{2};
};

}  // namespace

std::unique_ptr<NodePower> MakeBmcNodePower(ProcessRunner& runner) { return std::make_unique<BmcNodePower>(runner); }

}  // namespace clusterctl
