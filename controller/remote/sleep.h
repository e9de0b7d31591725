// Sleeping inside a host's coroutine without blocking its thread.
#pragma once

#include <chrono>
#include <utility>  // Boost.Asio coroutine headers use std::exchange without including it

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace clusterctl {

inline boost::asio::awaitable<void> SleepFor(std::chrono::milliseconds duration) {
  boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, duration);
  co_await timer.async_wait(boost::asio::use_awaitable);
}

}  // namespace clusterctl
