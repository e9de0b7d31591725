// Logging: the daemon's and the command line's diagnostics, each line with a
// level. The one adapter around spdlog.
//
// A line goes to one stream (stderr in production, a string stream in
// tests). When that stream is the systemd journal, each line starts with
// its sd-daemon priority ("<3>" for an error), which journald turns into
// the entry's priority, so `journalctl -p err` shows only the errors.
// Output meant for stdout (tables, JSON documents) never goes through here.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string_view>

namespace spdlog {
class logger;
}

namespace clusterctl {

enum class LogLevel { kError, kWarning, kInfo, kDebug };

// "error", "warning", "info", "debug" (the --log-level values), or nullopt.
std::optional<LogLevel> ParseLogLevel(std::string_view name);
const char* ToString(LogLevel level);

// The sd-daemon (syslog) priority of a level: 3 error, 4 warning, 6 info,
// 7 debug.
int JournalPriority(LogLevel level);

// Whether the stream with this device and inode is the journal: systemd sets
// $JOURNAL_STREAM to "DEVICE:INODE" of the stream it connects to stdout or
// stderr. A child that inherited the variable but writes elsewhere (a pipe,
// a file) must not prefix its lines, hence the comparison. Pure.
bool IsJournalStream(std::string_view journal_stream_env, uint64_t device, uint64_t inode);

// The above for this process's stderr (fd 2) and environment.
bool StderrIsJournal();

// Thread-safe: lines from several threads never interleave.
class Logger {
 public:
  // REQUIRES: `stream` outlives the logger.
  explicit Logger(std::ostream& stream, LogLevel level = LogLevel::kInfo, bool journal_priorities = false);
  ~Logger();
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;

  void SetLevel(LogLevel level);
  LogLevel level() const;
  bool Enabled(LogLevel level) const { return level <= this->level(); }

  // Writes `message` and a newline when `level` is enabled; a message of
  // several lines gets the journal priority on each. Never throws.
  void Log(LogLevel level, std::string_view message);
  void Error(std::string_view message) { Log(LogLevel::kError, message); }
  void Warning(std::string_view message) { Log(LogLevel::kWarning, message); }
  void Info(std::string_view message) { Log(LogLevel::kInfo, message); }
  void Debug(std::string_view message) { Log(LogLevel::kDebug, message); }

 private:
  std::shared_ptr<spdlog::logger> logger_;
};

}  // namespace clusterctl
