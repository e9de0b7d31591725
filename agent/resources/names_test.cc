#include "agent/resources/names.h"

#include <doctest/doctest.h>

#include "agent/resources/registry.h"
#include "common/json_text.h"

namespace clusterctl::agent {

TEST_CASE("package names: Debian's syntax, RPM's, and either before the family is known") {
  for (const std::string name : {"munge", "libpmix2", "g++", "nvidia-driver-550-server", "libstdc++6", "linux-image-6.1.0-18-amd64"}) {
    CAPTURE(name);
    CHECK(PackageNameRefusal(name, PackageFamily::kDebian).empty());
    CHECK(PackageNameRefusal(name, PackageFamily::kEither).empty());
  }
  for (const std::string name : {"NetworkManager", "perl-Data-Dumper", "python3_pip", "xorg-x11-server-Xorg"}) {
    CAPTURE(name);
    CHECK(PackageNameRefusal(name, PackageFamily::kRpm).empty());
    CHECK_FALSE(PackageNameRefusal(name, PackageFamily::kDebian).empty());  // Debian's are lower-case
  }
  CHECK(PackageNameRefusal("-oDPkg::Pre-Invoke::=touch /tmp/owned", PackageFamily::kEither) ==
        "'-oDPkg::Pre-Invoke::=touch /tmp/owned' is not a package name (it would be read as an option): letters, "
        "digits, '_', '.', '+' and '-', the first a letter, digit or '_'");
  for (const std::string name : {"", "-y", "--installroot=/tmp/x", "--host=evil", "a b", "pkg;id", "*", "/usr/bin/x",
                           "perl(Foo)", "x\n", "pkg=1.0", ".hidden"}) {
    CAPTURE(name);
    for (PackageFamily family : {PackageFamily::kDebian, PackageFamily::kRpm, PackageFamily::kEither}) {
      CHECK_FALSE(PackageNameRefusal(name, family).empty());
    }
  }
  CHECK_FALSE(PackageNameRefusal("a", PackageFamily::kDebian).empty());  // two characters at least
}

TEST_CASE("package versions: an exact version, never an option or a pattern") {
  for (const std::string version : {"550.144.03-1", "22.05.8-4+deb12u3", "3:560.35.03-1.el9", "1.0~rc1", "2.4_1^git"}) {
    CAPTURE(version);
    CHECK(PackageVersionRefusal(version).empty());
  }
  for (const std::string version : {"", "-1", "--force", "1.*", "1.0 evil", "1/stable", "=1"}) {
    CAPTURE(version);
    CHECK_FALSE(PackageVersionRefusal(version).empty());
  }
}

TEST_CASE("unit names: systemctl's syntax, never an option or a path") {
  for (const std::string unit : {"munge", "slurmd.service", "getty@tty1.service", "dev-disk-by\\x2dlabel-x.device",
                           "systemd-networkd-wait-online.service", "nfs-server", "sys-fs-fuse-connections.mount"}) {
    CAPTURE(unit);
    CHECK(UnitNameRefusal(unit).empty());
  }
  for (const std::string unit : {"", "--host=evil", "-H", "--root=/", ".service", "/tmp/evil.service", "a b", "x\ny"}) {
    CAPTURE(unit);
    CHECK_FALSE(UnitNameRefusal(unit).empty());
  }
  CHECK_FALSE(UnitNameRefusal(std::string(256, 'a')).empty());
}

TEST_CASE("kernel module names: modprobe's names, never an option") {
  for (const std::string module : {"ib_ipoib", "nvidia-peermem", "mlx5_core", "_x"}) CHECK(ModuleNameRefusal(module).empty());
  for (const std::string module : {"", "-r", "--all", ".x", "a/b", "a b"}) CHECK_FALSE(ModuleNameRefusal(module).empty());
}

namespace {

// A check (never an apply: before the fix, an apply would have run the
// injected option as root on this machine).
ResourceOutcome Check(const std::string& kind, nlohmann::json params, ResourceHost& host) {
  return RunResource({kind, std::move(params), "", false}, host);
}

}  // namespace

TEST_CASE("a name that would be an option is refused before any command runs (issue 31)") {
  struct Case {
    const char* kind;
    nlohmann::json params;
    const char* error;
  };
  const Case cases[] = {
      {"package", {{"name", "-oDPkg::Pre-Invoke::=touch /tmp/owned"}},
       "package parameter 'name': '-oDPkg::Pre-Invoke::=touch /tmp/owned' is not a package name (it would be read as "
       "an option)"},
      {"package", {{"name", {"munge", "--host=evil"}}}, "package parameter 'name': '--host=evil' is not a package name"},
      {"package", {{"name", "munge"}, {"version", "-1"}}, "package parameter 'version': '-1' is not a package version"},
      {"service", {{"name", "--host=evil"}}, "service parameter 'name': '--host=evil' is not a systemd unit name"},
      {"service", {{"name", "/tmp/evil.service"}, {"enabled", true}}, "service parameter 'name': '/tmp/evil.service' is not a systemd unit name"},
      {"kernel_module", {{"name", "-v"}, {"state", "absent"}}, "kernel_module parameter 'name': '-v' is not a kernel module name"},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.kind));
    CAPTURE(JsonText(c.params));
    ResourceHost host;
    ResourceOutcome outcome = Check(c.kind, c.params, host);
    CHECK(outcome.failed);
    CHECK(outcome.error.find(c.error) == 0);
    CHECK(host.log().empty());
  }
}

}  // namespace clusterctl::agent
