#include "common/log.h"

#include <sys/stat.h>

#include <charconv>
#include <cstdlib>
#include <mutex>
#include <ostream>
#include <string>

#include <spdlog/logger.h>
#include <spdlog/sinks/base_sink.h>

namespace clusterctl {
namespace {

spdlog::level::level_enum SpdlogLevel(LogLevel level) {
  switch (level) {
    case LogLevel::kError: return spdlog::level::err;
    case LogLevel::kWarning: return spdlog::level::warn;
    case LogLevel::kInfo: return spdlog::level::info;
    case LogLevel::kDebug: return spdlog::level::debug;
  }
  return spdlog::level::info;
}

LogLevel FromSpdlog(spdlog::level::level_enum level) {
  if (level >= spdlog::level::err) return LogLevel::kError;
  if (level == spdlog::level::warn) return LogLevel::kWarning;
  if (level == spdlog::level::info) return LogLevel::kInfo;
  return LogLevel::kDebug;
}

// The message alone (no time, no level word: the journal records both, and
// the command line's texts are what its users and tests know), one line per
// line of the message, each with the priority prefix in the journal.
class StreamSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  StreamSink(std::ostream& stream, bool journal_priorities) : stream_(stream), journal_(journal_priorities) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    std::string_view text(msg.payload.data(), msg.payload.size());
    if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    std::string out;
    const std::string prefix = journal_ ? "<" + std::to_string(JournalPriority(FromSpdlog(msg.level))) + ">" : "";
    while (true) {
      const size_t newline = text.find('\n');
      out += prefix;
      out += text.substr(0, newline);
      out += '\n';
      if (newline == std::string_view::npos) break;
      text.remove_prefix(newline + 1);
    }
    stream_ << out;
    stream_.flush();
  }
  void flush_() override { stream_.flush(); }

 private:
  std::ostream& stream_;
  const bool journal_;
};

}  // namespace

std::optional<LogLevel> ParseLogLevel(std::string_view name) {
  for (LogLevel level : {LogLevel::kError, LogLevel::kWarning, LogLevel::kInfo, LogLevel::kDebug}) {
    if (name == ToString(level)) return level;
  }
  return std::nullopt;
}

const char* ToString(LogLevel level) {
  switch (level) {
    case LogLevel::kError: return "error";
    case LogLevel::kWarning: return "warning";
    case LogLevel::kInfo: return "info";
    case LogLevel::kDebug: return "debug";
  }
  return "?";
}

int JournalPriority(LogLevel level) {
  switch (level) {
    case LogLevel::kError: return 3;
    case LogLevel::kWarning: return 4;
    case LogLevel::kInfo: return 6;
    case LogLevel::kDebug: return 7;
  }
  return 6;
}

bool IsJournalStream(std::string_view journal_stream_env, uint64_t device, uint64_t inode) {
  const size_t colon = journal_stream_env.find(':');
  if (colon == std::string_view::npos) return false;
  auto number = [](std::string_view text, uint64_t& value) {
    const char* end = text.data() + text.size();
    auto [ptr, error] = std::from_chars(text.data(), end, value);
    return !text.empty() && error == std::errc() && ptr == end;
  };
  uint64_t env_device = 0, env_inode = 0;
  return number(journal_stream_env.substr(0, colon), env_device) &&
         number(journal_stream_env.substr(colon + 1), env_inode) && env_device == device && env_inode == inode;
}

bool StderrIsJournal() {
  const char* env = std::getenv("JOURNAL_STREAM");
  struct stat st {};
  if (env == nullptr || ::fstat(2, &st) != 0) return false;
  return IsJournalStream(env, static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino));
}

Logger::Logger(std::ostream& stream, LogLevel level, bool journal_priorities)
    : logger_(std::make_shared<spdlog::logger>("clusterctl",
                                               std::make_shared<StreamSink>(stream, journal_priorities))) {
  logger_->set_level(SpdlogLevel(level));
  // A failing stream must not make the program fail: the line is lost.
  logger_->set_error_handler([](const std::string&) {});
}

Logger::~Logger() = default;

void Logger::SetLevel(LogLevel level) { logger_->set_level(SpdlogLevel(level)); }

LogLevel Logger::level() const { return FromSpdlog(logger_->level()); }

void Logger::Log(LogLevel level, std::string_view message) {
  try {
    logger_->log(SpdlogLevel(level), spdlog::string_view_t(message.data(), message.size()));
  } catch (...) {
    // bad_alloc while formatting: the line is lost, the caller goes on.
  }
}

}  // namespace clusterctl
