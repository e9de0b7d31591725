// Hosts: every host the state knows, with its last outcome, reachability
// and drift (docs/state.md, table hosts).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "controller/state/state_records.h"
#include "controller/state/stored_words.h"

namespace clusterctl {

struct HostRecord {
  std::string name;
  std::optional<std::string> address;
  HostStatus status = HostStatus::kNever;
  bool in_inventory = true;
  int64_t first_seen_at = 0;
  std::optional<int64_t> last_run_id;
  std::optional<int64_t> last_status_at;
  std::optional<std::string> last_error;
  std::optional<std::string> host_key_type;
  std::optional<std::string> host_key_sha256;
  bool drifted = false;
  std::optional<int64_t> removed_at;
  // The first of the connection attempts that failed since the last that
  // worked, whatever the command; its last error. Unset while reachable.
  std::optional<int64_t> unreachable_since;
  std::optional<std::string> unreachable_error;
};

class HostRecords : protected StateRecords {
 public:
  Result<std::vector<HostRecord>> ListHosts();
  // Adds inventory hosts the state does not know (status 'never'), refreshes
  // addresses, and flags hosts that left the inventory (in_inventory = 0).
  Status SyncInventoryHosts(const std::vector<std::pair<std::string, std::string>>& names_and_addresses);
  // Per host: the error of a connection attempt that failed (the first of
  // a row of them sets unreachable_since), or nullopt: it was reached.
  Status RecordReachability(const std::vector<std::pair<std::string, std::optional<std::string>>>& hosts);

  // A deploy's records of its hosts; these run inside the caller's
  // transaction (the engine's StateWriter groups them).
  Status RecordHostOutcome(const std::string& host, HostStatus status, int64_t run_id,
                           const std::optional<std::string>& error);
  // A host gone from the inventory whose removal a deploy completed.
  Status MarkHostRemoved(const std::string& host, int64_t run_id);
  // Whether a drift check (deploy --verify without changes) found the host
  // different from its roles; a converging deploy clears it.
  Status SetHostDrifted(const std::string& host, bool drifted);

 protected:
  using StateRecords::StateRecords;
};

}  // namespace clusterctl
