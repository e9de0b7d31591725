// Accepted SSH host keys: hosts by name (table hosts), jump hosts as
// "jump:<host>:<port>" (table jump_host_keys).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "controller/state/state_records.h"

namespace clusterctl {

struct StoredHostKey {
  std::string type;
  std::string sha256;
};

class HostKeyRecords : protected StateRecords {
 public:
  Result<std::map<std::string, StoredHostKey>> LoadHostKeys();
  Status RecordHostKeys(const std::vector<std::pair<std::string, StoredHostKey>>& keys);
  // Removes a recorded key; NotFound when there is none.
  Status ForgetHostKey(const std::string& name);

 protected:
  using StateRecords::StateRecords;
};

}  // namespace clusterctl
