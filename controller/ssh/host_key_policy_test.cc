#include "controller/ssh/host_key_policy.h"

#include <doctest/doctest.h>

namespace clusterctl {

TEST_CASE("host key decisions follow the recorded key, then known_hosts, then the policy") {
  using Kind = HostKeyDecision::Kind;
  HostKey presented{"ssh-ed25519", "SHA256:new"};
  RecordedHostKey same{"ssh-ed25519", "SHA256:new"};
  RecordedHostKey old{"ssh-ed25519", "SHA256:old"};
  struct Case {
    const char* name;
    HostKeyPolicy policy;
    std::optional<RecordedHostKey> recorded;
    KnownHostsVerdict known_hosts;
    Kind expected;
  };
  const Case cases[] = {
      {"recorded and equal", HostKeyPolicy::kStrict, same, KnownHostsVerdict::kUnknown, Kind::kAccept},
      {"recorded and changed, accept-new", HostKeyPolicy::kAcceptNew, old, KnownHostsVerdict::kUnknown, Kind::kRefuse},
      {"recorded and changed even if known_hosts agrees", HostKeyPolicy::kAcceptNew, old, KnownHostsVerdict::kMatch,
       Kind::kRefuse},
      {"new, in known_hosts", HostKeyPolicy::kStrict, std::nullopt, KnownHostsVerdict::kMatch, Kind::kAcceptAndRecord},
      {"new, known_hosts differs", HostKeyPolicy::kAcceptNew, std::nullopt, KnownHostsVerdict::kChanged, Kind::kRefuse},
      {"new, unknown, strict", HostKeyPolicy::kStrict, std::nullopt, KnownHostsVerdict::kUnknown, Kind::kRefuse},
      {"new, unknown, accept-new", HostKeyPolicy::kAcceptNew, std::nullopt, KnownHostsVerdict::kUnknown,
       Kind::kAcceptAndRecord},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CHECK(DecideHostKey("gpu07", c.policy, c.recorded, presented, c.known_hosts).kind == c.expected);
  }
}

TEST_CASE("a changed key is reported with both fingerprints") {
  HostKeyDecision d = DecideHostKey("node02", HostKeyPolicy::kAcceptNew, RecordedHostKey{"ssh-ed25519", "SHA256:AAA"},
                                    HostKey{"ssh-ed25519", "SHA256:BBB"}, KnownHostsVerdict::kUnknown);
  CHECK(d.message.find("HOST KEY CHANGED for node02: recorded ssh-ed25519 SHA256:AAA, presented ssh-ed25519 SHA256:BBB") == 0);
}

TEST_CASE("the registry remembers keys accepted during the run") {
  HostKeyRegistry registry({{"a", RecordedHostKey{"ssh-rsa", "SHA256:a"}}});
  CHECK(registry.Lookup("a")->sha256 == "SHA256:a");
  CHECK_FALSE(registry.Lookup("b"));
  registry.RecordAccepted("b", HostKey{"ssh-ed25519", "SHA256:b"});
  CHECK(registry.Lookup("b")->sha256 == "SHA256:b");
  REQUIRE(registry.Accepted().size() == 1);
  CHECK(registry.Accepted()[0].first == "b");
}

TEST_CASE("a key accepted but not made durable is not trusted (issue 31)") {
  // Given a run whose state cannot record keys
  HostKeyRegistry registry({});
  int calls = 0;
  registry.OnAccepted([&](const std::string&, const RecordedHostKey&) {
    ++calls;
    return Status::IoError("disk I/O error");
  });
  // When a host's new key is accepted
  Status recorded = registry.RecordAccepted("node03", HostKey{"ssh-ed25519", "SHA256:c"});
  // Then the host is refused with the reason, and the key stays unknown
  CHECK(calls == 1);
  CHECK_FALSE(recorded.ok());
  CHECK(recorded.message() ==
        "the new host key of node03 (ssh-ed25519 SHA256:c) could not be recorded in the state, so it is not used: "
        "disk I/O error");
  CHECK_FALSE(registry.Lookup("node03"));
  CHECK(registry.Accepted().empty());
}

}  // namespace clusterctl
