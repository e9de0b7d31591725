#include "controller/catalog/value_syntax.h"

#include <doctest/doctest.h>

namespace clusterctl {
namespace {

bool Has(const char* syntax, const char* text) {
  const ValueSyntax* s = FindValueSyntax(syntax);
  REQUIRE(s);
  return s->refuses(text).empty();
}

TEST_CASE("value syntaxes a role may declare for its variables") {
  CHECK(FindValueSyntax("nonsense") == nullptr);
  CHECK(Has("address:port", "10.0.0.1:9100"));
  CHECK(Has("address:port", "head.example:9100"));
  CHECK(Has("address:port", "[fd00::1]:9100"));
  CHECK(Has("address:port", ":9100"));
  for (const char* bad : {"10.0.0.1", "fd00::1:9100", "10.0.0.1:99999", "10.0.0.1:0", "a b:1", "x:1\n", "", "[::1:9"}) {
    CAPTURE(bad);
    CHECK_FALSE(Has("address:port", bad));
  }
  CHECK(Has("address", "10.0.0.1"));
  CHECK(Has("address", "fd00::1"));
  CHECK(Has("address", "[fd00::1]"));
  CHECK_FALSE(Has("address", "0.0.0.0 ;x"));
  CHECK_FALSE(Has("address", ""));
  CHECK_FALSE(Has("address", "-x"));
  CHECK(Has("port", "3000"));
  CHECK_FALSE(Has("port", "65536"));
  CHECK_FALSE(Has("port", "30x"));
  CHECK(Has("duration", "15d"));
  CHECK(Has("duration", "1d12h30m"));
  CHECK(Has("duration", "500ms"));
  for (const char* bad : {"", "15", "d", "15 d", "15d x", "15s\nfoo: bar", "-1s"}) {
    CAPTURE(bad);
    CHECK_FALSE(Has("duration", bad));
  }
  CHECK(Has("path", "/var/lib/prometheus/node-exporter"));
  for (const char* bad : {"relative", "/a b", "/x/../etc", "/x$y", ""}) {
    CAPTURE(bad);
    CHECK_FALSE(Has("path", bad));
  }
  CHECK(Has("word", "a.b:c/d[0]-e_f"));
  CHECK_FALSE(Has("word", "a b"));
  CHECK_FALSE(Has("word", ""));
  CHECK(Has("user-name", "hpc-admin.1_x"));
  for (const char* bad : {"", "-x", "a:ALL", "a b", "(wheel)", "a\nb", "abcdefghijklmnopqrstuvwxyz0123456"}) {
    CAPTURE(bad);
    CHECK_FALSE(Has("user-name", bad));
  }
  CHECK(Has("ldap-dn", "dc=example,dc=org"));
  CHECK(Has("ldap-dn", "dc=test_bed-1"));
  // Anything RFC 4514 escapes, an empty or other component: refused (it lands in LDIF and sssd.conf as it is).
  for (const char* bad : {"", "dc=", "o=site", "dc=a,", "dc=a+uid=b", "dc=a\\,b", "dc=a b", "dc=a,ou=x", "dc=a\nx: y"}) {
    CAPTURE(bad);
    CHECK_FALSE(Has("ldap-dn", bad));
  }
  for (const char* good : {"ldaps://ldap.example.org", "ldap://10.0.0.5:389", "ldaps://[fd00::1]:636", "ldaps://node01/"}) {
    CAPTURE(good);
    CHECK(Has("ldap-uri", good));
  }
  for (const char* bad : {"", "ldaps://", "http://x", "ldapi:///", "ldaps://a b", "ldaps://x/dc=evil", "ldaps://x,ldaps://y"}) {
    CAPTURE(bad);
    CHECK_FALSE(Has("ldap-uri", bad));
  }
  // Alertmanager's receivers: URLs it posts to, addresses it mails.
  for (const char* good : {"http://10.213.78.1:9099/alerts", "https://hooks.example.org/services/T0/B1?x=1&y=2",
                           "http://[fd00::1]:80", "http://node01"}) {
    CAPTURE(good);
    CHECK(Has("url", good));
  }
  for (const char* bad : {"", "http://", "ftp://x/y", "http://user:pw@x/y", "http://x/a b", "http://x/a'b",
                          "http://x/#frag", "http://x/a\nb", "http://x/a\\b", "http:// x", "https://x/${HOME}"}) {
    CAPTURE(bad);
    CHECK_FALSE(Has("url", bad));
  }
  for (const char* good : {"ops@example.org", "gpu-oncall+cluster_1@mail.site.example"}) {
    CAPTURE(good);
    CHECK(Has("email", good));
  }
  for (const char* bad : {"", "ops", "@example.org", "ops@", "ops@.org", "a b@x.org", "ops@x.org'", "o\"p@x", "a@b@c",
                          "ops@x.org\nBcc: y@z"}) {
    CAPTURE(bad);
    CHECK_FALSE(Has("email", bad));
  }
  // Slurm's accounting values (the slurm_accounting kind's own checks).
  CHECK(Has("slurm-name", "gpu_long-2"));
  CHECK_FALSE(Has("slurm-name", "-i"));
  CHECK(Has("slurm-tres", "cpu=64,gres/gpu=8"));
  CHECK_FALSE(Has("slurm-tres", "cpu=8G"));
  CHECK(Has("slurm-time", "2-00:00:00"));
  CHECK_FALSE(Has("slurm-time", "2 days"));
}

TEST_CASE("value syntaxes for passwd's fields, sacctmgr's description and a directory only root writes") {
  CHECK(Has("gecos", "Carol Shaw, room 12"));
  CHECK(Has("gecos", "Seamus O'Brien"));
  CHECK(Has("gecos", ""));
  for (const char* bad : {"Carol\nroot::0:0::/:/bin/sh", "a:b", "tab\there", "caf\xe9", "a+b", "say \"hi\"", " lead",
                          "trail ", "a\\b", "x#1"}) {
    CAPTURE(bad);
    CHECK_FALSE(Has("gecos", bad));
  }
  CHECK(Has("login-shell", "/bin/bash"));
  CHECK(Has("login-shell", "/usr/local/bin/zsh-5.9"));
  for (const char* bad : {"bash", "/bin/bash\n", "/bin/ba:sh", "/bin/b sh", "/usr/../bin/sh", ""}) {
    CAPTURE(bad);
    CHECK_FALSE(Has("login-shell", bad));
  }
  CHECK(Has("slurm-description", "physics group | GPU (2026)"));
  for (const char* bad : {"it's", "say \"hi\"", "two\nlines", "nul\x01"}) {
    CAPTURE(bad);
    CHECK_FALSE(Has("slurm-description", bad));
  }
  CHECK(Has("slurm-maintenance-reason", "clusterctl-maintenance: MIG layout change"));
  CHECK(Has("slurm-maintenance-reason", "site: GPU work"));
  for (const char* bad : {"clusterctl: MIG layout change", "clusterctl: ", "", " lead", "trail ", "two\nlines", "nul\x01"}) {
    CAPTURE(bad);
    CHECK_FALSE(Has("slurm-maintenance-reason", bad));
  }
  CHECK(FindValueSyntax("slurm-maintenance-reason")->refuses("clusterctl: x").find("the health check's own drains") !=
        std::string::npos);
  for (const char* good : {"/var/lib/prometheus/node-exporter", "/srv/tmp", "/tmpfiles", "/run/clusterctl/metrics"}) {
    CAPTURE(good);
    CHECK(Has("root-directory", good));
  }
  for (const char* bad : {"/tmp", "/tmp/", "/tmp/metrics", "//tmp/x", "/./var/tmp", "/dev/shm/x", "/run/lock",
                          "/var/lock/x", "/run/user/1000/m", "/run/shm", "tmp", "/x/../tmp"}) {
    CAPTURE(bad);
    CHECK_FALSE(Has("root-directory", bad));
  }
}

}  // namespace
}  // namespace clusterctl
