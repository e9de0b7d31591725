// Host-key verification policy (pure), and the per-run registry of keys.
//
// - A key recorded in the state store for the host must match; a different
//   key is always refused, with both fingerprints.
// - Otherwise the user's ~/.ssh/known_hosts decides when it knows the host
//   (a match is accepted and recorded; a mismatch refused).
// - Otherwise `accept-new` accepts and records the key and says so; `strict`
//   refuses it.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "controller/ssh/ssh_session.h"
#include "inventory/connection.h"

namespace clusterctl {

struct RecordedHostKey {
  std::string type;
  std::string sha256;
};

struct HostKeyDecision {
  enum class Kind { kAccept, kAcceptAndRecord, kRefuse };
  Kind kind = Kind::kRefuse;
  std::string message;  // for kAcceptAndRecord (a note) and kRefuse (the reason)
};

HostKeyDecision DecideHostKey(const std::string& host, HostKeyPolicy policy,
                              const std::optional<RecordedHostKey>& recorded, const HostKey& presented,
                              KnownHostsVerdict user_known_hosts);

// Keys known at the start of a run, and the ones accepted during it.
// Thread-safe: hosts verify concurrently.
class HostKeyRegistry {
 public:
  explicit HostKeyRegistry(std::map<std::string, RecordedHostKey> recorded) : recorded_(std::move(recorded)) {}

  std::optional<RecordedHostKey> Lookup(const std::string& host);
  // Records a key accepted for `host` once the callback has made it durable.
  // Returns the callback's error otherwise: the key stays unknown, and the
  // caller must not use the connection (no authentication, no request).
  Status RecordAccepted(const std::string& host, const HostKey& key);
  // Called (from the accepting host's thread) for every key accepted from
  // now on; returns once the key is durable (in the state), or why it
  // cannot be. Set before any host runs.
  using AcceptedCallback = std::function<Status(const std::string& host, const RecordedHostKey& key)>;
  void OnAccepted(AcceptedCallback callback) { on_accepted_ = std::move(callback); }
  // Keys accepted during this run (to be written to the state store).
  std::vector<std::pair<std::string, RecordedHostKey>> Accepted();

 private:
  std::mutex mutex_;
  std::map<std::string, RecordedHostKey> recorded_;
  std::vector<std::pair<std::string, RecordedHostKey>> accepted_;
  AcceptedCallback on_accepted_;
};

}  // namespace clusterctl
