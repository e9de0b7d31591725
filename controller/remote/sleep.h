// Sleeping inside a host's coroutine without blocking its thread.
#pragma once

#include <chrono>
#include <utility>  // Boost.Asio coroutine headers use std::exchange without including it

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "common/clock.h"

namespace clusterctl {

inline boost::asio::awaitable<void> SleepFor(std::chrono::milliseconds duration) {
  boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, duration);
  co_await timer.async_wait(boost::asio::use_awaitable);
}

// A wait measured on `clock` (common/clock.h): real time on the system
// clock, none on a fake one, which moves on by `duration` instead.
inline boost::asio::awaitable<void> SleepFor(const Clock& clock, std::chrono::milliseconds duration) {
  const std::chrono::milliseconds real = clock.Sleep(duration);
  if (real.count() > 0) co_await SleepFor(real);
}

}  // namespace clusterctl
