#include "controller/state/host_key_journal.h"

#include <doctest/doctest.h>

#include "controller/state/test_util.h"

namespace clusterctl {
namespace {

class LocalProbe final : public FilesystemProbe {
 public:
  Result<FilesystemInfo> Probe(const std::string&) const override { return FilesystemInfo{0xEF53, "", "/"}; }
};

// A state store for writing with its host-key journal open.
struct JournalOnState {
  testing::TempDir dir;
  FakeClock clock;
  LocalProbe probe;
  Result<std::unique_ptr<StateStore>> store =
      StateStore::OpenForWriting(StatePaths{dir.path()}, {&clock, &probe, "test"});
  Result<std::unique_ptr<HostKeyJournal>> journal = Opened(store);

  static Result<std::unique_ptr<HostKeyJournal>> Opened(Result<std::unique_ptr<StateStore>>& store) {
    REQUIRE(store.ok());
    return HostKeyJournal::Open(**store);
  }
};

}  // namespace

TEST_CASE("host keys accepted during a run are in the state before the run ends") {
  JournalOnState state;
  auto& store = state.store;
  auto& journal = state.journal;
  REQUIRE(journal.ok());
  (*journal)->Record("node01", {"ssh-ed25519", "SHA256:one"});
  (*journal)->Record("jump:bastion:22", {"ssh-ed25519", "SHA256:two"});
  REQUIRE((*journal)->Flush().ok());
  // Seen through the run's own connection, while the run is still going.
  auto keys = (*store)->LoadHostKeys();
  REQUIRE(keys.ok());
  CHECK(keys->at("node01").sha256 == "SHA256:one");
  CHECK(keys->at("jump:bastion:22").sha256 == "SHA256:two");
}

TEST_CASE("a host key is committed when Record returns: before the host's first request (issue 31)") {
  JournalOnState state;
  auto& store = state.store;
  auto& journal = state.journal;
  REQUIRE(journal.ok());
  for (int i = 0; i < 20; ++i) {
    const std::string host = "node" + std::to_string(i);
    REQUIRE((*journal)->Record(host, {"ssh-ed25519", "SHA256:" + host}).ok());
    // No Flush: what a host does next (authenticate, send requests) may rely on it.
    auto keys = (*store)->LoadHostKeys();
    REQUIRE(keys.ok());
    REQUIRE(keys->count(host) == 1);
    CHECK(keys->at(host).sha256 == "SHA256:" + host);
  }
}

}  // namespace clusterctl
