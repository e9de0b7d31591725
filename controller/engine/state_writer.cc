#include "controller/engine/state_writer.h"

namespace clusterctl {

std::optional<HostStatus> RecordedHostStatus(HostOutcome outcome) {
  switch (outcome) {
    case HostOutcome::kOk: return HostStatus::kOk;
    case HostOutcome::kFailed: return HostStatus::kFailed;
    case HostOutcome::kUnreachable: return HostStatus::kUnreachable;
    case HostOutcome::kSkipped:
    case HostOutcome::kStopped: return std::nullopt;
  }
  return std::nullopt;
}

StateWriter::StateWriter(StateStore& store) : store_(store), thread_([this] { Loop(); }) {}

StateWriter::~StateWriter() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void StateWriter::Post(Write write) { Enqueue(std::move(write), nullptr); }

void StateWriter::Enqueue(Write write, std::function<void(Status)> done) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back({std::move(write), std::move(done)});
  }
  wake_.notify_one();
}

Status StateWriter::Flush() {
  std::unique_lock<std::mutex> lock(mutex_);
  drained_.wait(lock, [this] { return queue_.empty() && !busy_; });
  return first_error_;
}

void StateWriter::Loop() {
  while (true) {
    std::deque<Pending> batch;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty() && stopping_) return;
      batch.swap(queue_);
      busy_ = true;
    }
    std::vector<Status> results(batch.size());
    auto transaction = SqliteTransaction::Begin(store_.db());
    Status commit = transaction.ok() ? Status::Ok() : transaction.status();
    if (commit.ok()) {
      for (size_t i = 0; i < batch.size(); ++i) results[i] = batch[i].write(store_);
      commit = (*transaction)->Commit();
    }
    for (size_t i = 0; i < batch.size(); ++i) {
      Status status = commit.ok() ? results[i] : commit;
      if (!status.ok()) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (first_error_.ok()) first_error_ = status;
      }
      if (batch[i].done) batch[i].done(status);
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      busy_ = false;
    }
    drained_.notify_all();
  }
}

}  // namespace clusterctl
