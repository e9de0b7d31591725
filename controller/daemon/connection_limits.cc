#include "controller/daemon/connection_limits.h"

#include <algorithm>

namespace clusterctl {

ConnectionLimits::Admission ConnectionLimits::Admit(const std::string& address) {
  auto held = ordinary_by_address_.find(address);
  const size_t by_address = held == ordinary_by_address_.end() ? 0 : held->second;
  if (ordinary_ < limits_.ordinary && by_address < limits_.per_address) {
    return {Open(address, Slot::kOrdinary), Slot::kOrdinary, 0};
  }
  uint64_t evicted = 0;
  if (reserved_ >= limits_.reserved) {
    if (silent_reserved_.empty()) return {};
    evicted = silent_reserved_.front();
    Forget(open_.find(evicted));
  }
  const uint64_t id = Open(address, Slot::kReserved);
  silent_reserved_.push_back(id);
  return {id, Slot::kReserved, evicted};
}

uint64_t ConnectionLimits::Open(const std::string& address, Slot slot) {
  const uint64_t id = next_id_++;
  open_.emplace(id, Entry{address, slot});
  if (slot == Slot::kOrdinary) {
    ++ordinary_;
    ++ordinary_by_address_[address];
  } else {
    ++reserved_;
  }
  return id;
}

void ConnectionLimits::Spoke(uint64_t id) {
  silent_reserved_.erase(std::remove(silent_reserved_.begin(), silent_reserved_.end(), id), silent_reserved_.end());
}

void ConnectionLimits::Release(uint64_t id) {
  auto entry = open_.find(id);
  if (entry != open_.end()) Forget(entry);
}

void ConnectionLimits::Forget(std::map<uint64_t, Entry>::iterator entry) {
  if (entry->second.slot == Slot::kOrdinary) {
    --ordinary_;
    auto held = ordinary_by_address_.find(entry->second.address);
    if (--held->second == 0) ordinary_by_address_.erase(held);
  } else {
    --reserved_;
    Spoke(entry->first);
  }
  open_.erase(entry);
}

}  // namespace clusterctl
