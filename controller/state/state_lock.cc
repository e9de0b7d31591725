#include "controller/state/state_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <chrono>
#include <cstring>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/json_text.h"
#include "common/clock.h"

namespace clusterctl {
namespace {

std::string ReadAll(int fd) {
  std::string text;
  char buffer[4096];
  off_t offset = 0;
  while (true) {
    ssize_t n = ::pread(fd, buffer, sizeof buffer, offset);
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
    offset += n;
    if (text.size() > 65536) break;
  }
  return text;
}

}  // namespace

std::string LockHolder::Describe() const {
  return "pid " + std::to_string(pid) + " on " + host + " since " + FormatUtc(started_at_ms) + " (" + command + ")";
}

std::string LockHolder::Serialize() const {
  return JsonText(nlohmann::json{{"pid", pid}, {"host", host}, {"started_at", started_at_ms}, {"command", command}}) +
         "\n";
}

std::optional<LockHolder> LockHolder::Parse(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  // A record is whatever another process (or a person) left in the file:
  // any field of another type makes it "no record", never an exception.
  auto text_of = [&](const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string("?");
  };
  auto pid = j.find("pid");
  if (pid == j.end() || !pid->is_number_integer() || pid->get<int64_t>() <= 0 || pid->get<int64_t>() > INT32_MAX) {
    return std::nullopt;
  }
  LockHolder h;
  h.pid = static_cast<int>(pid->get<int64_t>());
  h.host = text_of("host");
  auto started = j.find("started_at");
  h.started_at_ms = started != j.end() && started->is_number_integer() ? started->get<int64_t>() : 0;
  h.command = text_of("command");
  return h;
}

LockHolder LockHolder::Current(int64_t now_ms, const std::string& command) {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return LockHolder{static_cast<int>(::getpid()), host, now_ms, command};
}

Result<StateLock::Acquired> StateLock::Acquire(const std::string& lock_path, const LockHolder& me) {
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Status::IoError("cannot open lock file " + lock_path + ": " + std::strerror(errno));

  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int error = errno;
    if (error != EWOULDBLOCK) {
      ::close(fd);
      return Status::IoError("cannot lock " + lock_path + ": " + std::strerror(error));
    }
    // The holder writes its record right after locking; give it a moment.
    std::optional<LockHolder> holder;
    for (int attempt = 0; attempt < 20 && !holder; ++attempt) {
      holder = LockHolder::Parse(ReadAll(fd));
      if (!holder) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    ::close(fd);
    return Status::Busy(holder ? "held by " + holder->Describe() : "held by another process (no holder record)");
  }

  Acquired acquired;
  acquired.cleared_stale_holder = LockHolder::Parse(ReadAll(fd));
  std::string record = me.Serialize();
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, record.data(), record.size(), 0) != static_cast<ssize_t>(record.size()) ||
      ::fsync(fd) != 0) {
    int error = errno;
    ::close(fd);
    return Status::IoError("cannot write lock holder record to " + lock_path + ": " + std::strerror(error));
  }
  acquired.lock.reset(new StateLock(fd));
  return acquired;
}

StateLock::~StateLock() {
  if (::ftruncate(fd_, 0) == 0) ::fsync(fd_);
  ::close(fd_);  // releases the flock
}

}  // namespace clusterctl
