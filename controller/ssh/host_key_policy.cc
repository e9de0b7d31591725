#include "controller/ssh/host_key_policy.h"

namespace clusterctl {

HostKeyDecision DecideHostKey(const std::string& host, HostKeyPolicy policy,
                              const std::optional<RecordedHostKey>& recorded, const HostKey& presented,
                              KnownHostsVerdict user_known_hosts) {
  using Kind = HostKeyDecision::Kind;
  if (recorded) {
    if (recorded->sha256 == presented.sha256) return {Kind::kAccept, ""};
    return {Kind::kRefuse, "HOST KEY CHANGED for " + host + ": recorded " + recorded->type + " " + recorded->sha256 +
                               ", presented " + presented.type + " " + presented.sha256 +
                               ". Refusing to connect (possible man-in-the-middle). If the node was reinstalled, "
                               "forget the old key with: clusterctl hostkey forget INVENTORY " + host};
  }
  switch (user_known_hosts) {
    case KnownHostsVerdict::kMatch:
      return {Kind::kAcceptAndRecord, "host key of " + host + " matches ~/.ssh/known_hosts; recorded " +
                                          presented.type + " " + presented.sha256};
    case KnownHostsVerdict::kChanged:
      return {Kind::kRefuse, "host key of " + host + " (" + presented.type + " " + presented.sha256 +
                                 ") differs from the one in ~/.ssh/known_hosts. Refusing to connect."};
    case KnownHostsVerdict::kUnknown:
    case KnownHostsVerdict::kError:
      break;
  }
  if (policy == HostKeyPolicy::kStrict) {
    return {Kind::kRefuse, "unknown host key for " + host + " (" + presented.type + " " + presented.sha256 +
                               ") and host_key_policy is strict: add it to ~/.ssh/known_hosts first"};
  }
  return {Kind::kAcceptAndRecord,
          "new host key for " + host + " accepted and recorded: " + presented.type + " " + presented.sha256};
}

std::optional<RecordedHostKey> HostKeyRegistry::Lookup(const std::string& host) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = recorded_.find(host);
  if (it == recorded_.end()) return std::nullopt;
  return it->second;
}

Status HostKeyRegistry::RecordAccepted(const std::string& host, const HostKey& key) {
  RecordedHostKey record{key.type, key.sha256};
  if (on_accepted_) {
    Status durable = on_accepted_(host, record);
    if (!durable.ok()) {
      return Status::FailedPrecondition("the new host key of " + host + " (" + key.type + " " + key.sha256 +
                                        ") could not be recorded in the state, so it is not used: " +
                                        durable.message());
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  recorded_[host] = record;
  accepted_.emplace_back(host, record);
  return Status::Ok();
}

std::vector<std::pair<std::string, RecordedHostKey>> HostKeyRegistry::Accepted() {
  std::lock_guard<std::mutex> lock(mutex_);
  return accepted_;
}

}  // namespace clusterctl
