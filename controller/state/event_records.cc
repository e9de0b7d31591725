// EventRecords: the events table.
#include "controller/state/event_records.h"

#include "controller/state/row_mapping.h"

namespace clusterctl {

Status EventRecords::RecordEvent(std::optional<int64_t> run_id, const std::optional<std::string>& host,
                                 const std::string& level, const std::string& kind, const std::string& message) {
  return ExecuteSql(db(), "INSERT INTO events (run_id, at, host, level, kind, message) VALUES (?, ?, ?, ?, ?, ?)",
                    run_id, NowMs(), host, level, kind, message);
}

Result<std::vector<nlohmann::json>> EventRecords::EventsOfRun(int64_t run_id) {
  return SelectRows(
      db(), "SELECT at, host, level, kind, message FROM events WHERE run_id = ? ORDER BY id",
      [](const SqliteStatement& row) {
        int64_t at = 0;
        std::optional<std::string> host;
        std::string level, kind, message;
        ReadColumns(row, at, host, level, kind, message);
        return nlohmann::json{{"at", at}, {"host", host.value_or("")}, {"level", level}, {"kind", kind},
                              {"message", message}};
      },
      run_id);
}

}  // namespace clusterctl
