// The syntax of the names resources pass to root commands as arguments: a
// package, its version, a systemd unit, a kernel module. An inventory value
// such as `-oDPkg::Pre-Invoke::=CMD` or `--root=/` would otherwise reach
// apt-get, dnf or systemctl as an option. Each function returns why a value
// is refused ("" when it is a name of its kind); the parameter tables
// (schema.h) attach them to parameters, so the agent, the planner and
// `clusterctl inventory check` refuse the same values.
#pragma once

#include <string>
#include <string_view>

namespace clusterctl::agent {

enum class PackageFamily {
  kDebian,  // Debian policy 5.6.1: [a-z0-9][a-z0-9+.-]+
  kRpm,     // [A-Za-z0-9_][A-Za-z0-9_.+-]* (no globs, provides or paths)
  kEither,  // a name of one or the other (before the node's family is known)
};

std::string PackageNameRefusal(std::string_view name, PackageFamily family);
inline std::string AnyPackageNameRefusal(std::string_view name) {
  return PackageNameRefusal(name, PackageFamily::kEither);
}
// [epoch:]version[-release]: [A-Za-z0-9][A-Za-z0-9.+~:_^-]* (no globs).
std::string PackageVersionRefusal(std::string_view version);
// A unit as systemctl takes it (the suffix may be left out): [A-Za-z0-9:_.@\-]
// and backslash (systemd-escape's \x2d), not starting with '-' or '.', at most 255.
std::string UnitNameRefusal(std::string_view name);
// [A-Za-z0-9_][A-Za-z0-9_.-]*: modprobe's names, '-' and '_' alike.
std::string ModuleNameRefusal(std::string_view name);

}  // namespace clusterctl::agent
