#include "controller/state/host_key_journal.h"

#include <vector>

namespace clusterctl {

Result<std::unique_ptr<HostKeyJournal>> HostKeyJournal::Open(const StateStore& main) {
  auto side = main.OpenSideConnection();
  if (!side.ok()) return side.status();
  return std::unique_ptr<HostKeyJournal>(new HostKeyJournal(std::move(side).value()));
}

HostKeyJournal::HostKeyJournal(std::unique_ptr<StateStore> store)
    : store_(std::move(store)), thread_([this] { Loop(); }) {}

HostKeyJournal::~HostKeyJournal() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

Status HostKeyJournal::Record(const std::string& name, const StoredHostKey& key) {
  std::unique_lock<std::mutex> lock(mutex_);
  queue_.emplace_back(name, key);
  const uint64_t ticket = ++queued_;
  wake_.notify_all();
  drained_.wait(lock, [&] { return written_ >= ticket; });
  for (const auto& [first, last, error] : failures_) {
    if (first <= ticket && ticket <= last) return error;
  }
  return Status::Ok();
}

Status HostKeyJournal::Flush() {
  std::unique_lock<std::mutex> lock(mutex_);
  drained_.wait(lock, [&] { return queue_.empty() && !writing_; });
  return first_error_;
}

void HostKeyJournal::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything is written
    std::vector<std::pair<std::string, StoredHostKey>> batch(queue_.begin(), queue_.end());
    queue_.clear();
    writing_ = true;
    lock.unlock();
    Status written = store_->RecordHostKeys(batch);
    lock.lock();
    writing_ = false;
    if (!written.ok()) {
      failures_.emplace_back(written_ + 1, written_ + batch.size(), written);
      if (first_error_.ok()) first_error_ = written;
    }
    written_ += batch.size();
    drained_.notify_all();
  }
}

}  // namespace clusterctl
