// ConnectionLimits: which connections the daemon's HTTP server takes.
//
// The server has `ordinary` slots, of which one client address may hold at
// most `per_address`. A connection past either limit gets one of `reserved`
// slots instead, on which the server serves one privileged request (the
// daemon: one with the token, or the liveness probe), so an admin reaches the API
// while others hold every ordinary slot. A reserved connection that has not
// yet sent its first request gives way, oldest first, to a new connection
// when the reserve is full: clients that connect and say nothing cannot hold
// the reserve. Past that a connection is refused.
//
// Not thread-safe: the server's one I/O thread owns it.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>

namespace clusterctl {

class ConnectionLimits {
 public:
  struct Limits {
    size_t ordinary = 256;
    size_t per_address = 32;
    size_t reserved = 16;
  };
  enum class Slot { kOrdinary, kReserved, kRefused };
  struct Admission {
    uint64_t id = 0;  // 0 when refused
    Slot slot = Slot::kRefused;
    uint64_t evicted = 0;  // a silent reserved connection that gave way: the caller closes it; 0 when none
  };

  explicit ConnectionLimits(Limits limits) : limits_(limits) {}

  Admission Admit(const std::string& address);
  // The connection's first request has arrived: it no longer gives way.
  void Spoke(uint64_t id);
  // The connection has ended. Nothing for one that was evicted or refused.
  void Release(uint64_t id);

  size_t ordinary_in_use() const { return ordinary_; }
  size_t reserved_in_use() const { return reserved_; }

 private:
  struct Entry {
    std::string address;
    Slot slot;
  };
  uint64_t Open(const std::string& address, Slot slot);
  void Forget(std::map<uint64_t, Entry>::iterator entry);

  Limits limits_;
  uint64_t next_id_ = 1;
  std::map<uint64_t, Entry> open_;
  std::map<std::string, size_t> ordinary_by_address_;  // no entry for an address that holds none
  size_t ordinary_ = 0;
  size_t reserved_ = 0;
  std::deque<uint64_t> silent_reserved_;  // reserved connections before their first request, oldest first
};

}  // namespace clusterctl
