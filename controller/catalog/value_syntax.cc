#include "controller/catalog/value_syntax.h"

#include "agent/resources/nvidia_mig_layout.h"
#include "agent/resources/slurm_accounting_model.h"
#include "common/strings.h"
#include "controller/validate/slurm_output.h"
#include "inventory/connection.h"

namespace clusterctl {
namespace {

bool Digits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

// One word: the character set the roles' node-side "single word" checks
// allowed before these syntaxes replaced them.
std::string Word(std::string_view text) {
  if (!IsAlnumOr(text, "._:/[]-")) return "is not one word of letters, digits and . _ : / [ ] -";
  return "";
}

std::string Port(std::string_view text) {
  if (!Digits(text) || text.size() > 5 || std::stoul(std::string(text)) < 1 || std::stoul(std::string(text)) > 65535) {
    return "is not a port (1-65535)";
  }
  return "";
}

// A host name, an IPv4 address, or an IPv6 address (bare or in brackets).
std::string Address(std::string_view text) {
  if (!IsAlnumOr(text, "._:[]-") || text.front() == '-') {
    return "is not an address (a host name or an IP address)";
  }
  if ((text.front() == '[') != (text.back() == ']') || text.find('[', 1) != std::string_view::npos ||
      text.find(']') < text.size() - 1) {
    return "is not an address (brackets go around a whole IPv6 address)";
  }
  return "";
}

// HOST:PORT, HOST being an address without ':' or [IPv6], or nothing (every address).
std::string AddressPort(std::string_view text) {
  const size_t colon = text.rfind(':');
  const std::string_view host = colon == std::string_view::npos ? text : text.substr(0, colon);
  const bool host_ok = host.empty() || (Address(host).empty() && (host.front() == '[' || host.find(':') == std::string_view::npos));
  if (colon == std::string_view::npos || !host_ok || !Port(text.substr(colon + 1)).empty()) {
    return "is not ADDRESS:PORT (a host name or IPv4 address, or an IPv6 address in brackets, then ':' and a port)";
  }
  return "";
}

// Prometheus's duration: 1d12h, 90s, 500ms.
std::string Duration(std::string_view text) {
  if (PrometheusDurationMs(text)) return "";
  return "is not a duration (a number and a unit, ms s m h d w y, repeated: 90s, 1d12h)";
}

// An absolute path of plain characters, without '..'.
std::string Path(std::string_view text) {
  if (!IsAlnumOr(text, "._/@%+=,:-") || text.front() != '/') {
    return "is not an absolute path of letters, digits and . _ / @ % + = , : -";
  }
  if (("/" + std::string(text) + "/").find("/../") != std::string::npos) return "is not a path without '..'";
  return "";
}

// An InfiniBand port as DEVICE/PORT: mlx5_0/1.
std::string IbPort(std::string_view text) {
  const size_t slash = text.find('/');
  if (slash == 0 || slash == std::string_view::npos || !IsAlnumOr(text.substr(0, slash), "_") ||
      !Digits(text.substr(slash + 1)) || text.size() - slash > 4) {
    return "is not DEVICE/PORT (mlx5_0/1)";
  }
  return "";
}

// A byte count with an optional K, M or G: 1G, 512M, 65536.
std::string Size(std::string_view text) {
  const std::string_view digits = !text.empty() && std::string_view("KMG").find(text.back()) != std::string_view::npos
                                      ? text.substr(0, text.size() - 1)
                                      : text;
  if (!Digits(digits) || digits.size() > 12) return "is not a size (digits and an optional K, M or G: 1G, 512M)";
  return "";
}

// A user or group name as the inventory's connection user must be one: it
// lands in files that split at ':' and spaces (pam_access's access.conf).
std::string UserName(std::string_view text) {
  if (!IsUserName(std::string(text))) {
    return "is not a user or group name (at most 32 letters, digits and _ . -, not first -)";
  }
  return "";
}

// A base DN as the directory roles write one: dc= components of letters,
// digits, '_' and '-' (dc=example,dc=org). Nothing RFC 4514 would escape,
// so it lands in LDIF and sssd.conf as it is.
std::string LdapDn(std::string_view text) {
  for (const std::string& part : Split(std::string(text), ',')) {
    if (part.size() < 4 || part.compare(0, 3, "dc=") != 0 || !IsAlnumOr(part.substr(3), "_-")) {
      return "is not a DN of dc= components of letters, digits, _ and - (dc=example,dc=org)";
    }
  }
  return "";
}

// An LDAP server's URI: ldaps://ADDRESS[:PORT], or ldap://ADDRESS[:PORT]
// (then StartTLS is demanded: the directory is never read in clear text).
std::string LdapUri(std::string_view text) {
  const size_t scheme = text.rfind("ldaps://", 0) == 0 ? 8 : text.rfind("ldap://", 0) == 0 ? 7 : 0;
  std::string_view rest = scheme == 0 ? std::string_view() : text.substr(scheme);
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  const bool ok = !rest.empty() && (AddressPort(rest).empty() || Address(rest).empty());
  if (!ok) return "is not an LDAP URI (ldaps://HOST or ldap://HOST, with an optional :PORT)";
  return "";
}

// An http(s) URL Alertmanager posts to: http[s]://ADDRESS[:PORT][/PATH],
// the path of URL characters that need no quoting in a YAML '...' value
// (no quote, space, '#', '\\' or control character), and no user:password@:
// a credential belongs in a secret file, not in the inventory.
std::string Url(std::string_view text) {
  const size_t scheme = text.rfind("https://", 0) == 0 ? 8 : text.rfind("http://", 0) == 0 ? 7 : 0;
  const std::string_view rest = scheme == 0 ? std::string_view() : text.substr(scheme);
  const size_t slash = rest.find('/');
  const std::string_view authority = rest.substr(0, slash);
  const std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  const bool authority_ok = !authority.empty() && (AddressPort(authority).empty() || Address(authority).empty());
  if (!authority_ok || !(path.empty() || IsAlnumOr(path, "/._~-?&=%+,;:@"))) {
    return "is not an http(s) URL (http://HOST[:PORT]/PATH, https://...; no credentials, quotes, spaces or '#')";
  }
  return "";
}

// An email address as Alertmanager's to/from take it: LOCAL@DOMAIN, the
// local part of letters, digits and . _ + -, the domain a host name.
std::string Email(std::string_view text) {
  const size_t at = text.find('@');
  const std::string_view local = text.substr(0, at);
  const std::string_view domain = at == std::string_view::npos ? std::string_view() : text.substr(at + 1);
  if (at == std::string_view::npos || local.empty() || !IsAlnumOr(local, "._+-") || domain.empty() ||
      !IsAlnumOr(domain, ".-") || domain.front() == '.' || domain.front() == '-' || domain.back() == '.') {
    return "is not an email address (LOCAL@DOMAIN: letters, digits and . _ + - before '@', a host name after)";
  }
  return "";
}

// Printable ASCII on one line (no control character, nothing above 0x7e).
bool PrintableLine(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) return false;
  }
  return true;
}

// A directory user's full name: a field of /etc/passwd as getent prints
// it (one line of printable ASCII without ':', the field separator) that
// the directory's LDIF also takes as it is (no character a DN escapes,
// \ " + ; < > #, and no space first or last: the LDIF format's own rule,
// file_format.h), so inventory check refuses what planning would.
std::string Gecos(std::string_view text) {
  if (!PrintableLine(text) || text.find_first_of(":\\\"+;<>#") != std::string_view::npos ||
      (!text.empty() && (text.front() == ' ' || text.back() == ' '))) {
    return "is not a full name for /etc/passwd and the directory (printable ASCII on one line, without : \\ \" + ; < > # "
           "or a space first or last)";
  }
  return "";
}

// A login shell: an absolute path (the `path` syntax) without ':', which
// would end the passwd entry's last field early.
std::string LoginShell(std::string_view text) {
  if (!Path(text).empty() || text.find(':') != std::string_view::npos) {
    return "is not a login shell (an absolute path of letters, digits and . _ / @ % + = , -, without ':' or '..')";
  }
  return "";
}

// An account's description as sacctmgr stores it: one line of printable
// ASCII without quotes. sacctmgr takes it in one argument (never a shell),
// but its strip_quotes() drops a leading quote and replaces every other
// one with '`', so a description with a quote would never read back as
// written and the account would differ at every deploy.
std::string SlurmDescription(std::string_view text) {
  if (!PrintableLine(text) || text.find_first_of("'\"") != std::string_view::npos) {
    return "is not one line of printable ASCII without quotes (sacctmgr rewrites ' and \")";
  }
  return "";
}

// The Slurm reason clusterctl drains a node with for maintenance (a driver
// change, a MIG layout) and resumes it only with: one line of printable
// ASCII, no space first or last (sinfo prints it padded, and it is compared
// stripped), and not the health check's prefix, `clusterctl: `: the health
// check resumes the drains with that prefix, its own, once its checks pass
// (docs/health.md), which would undo the maintenance drain.
std::string SlurmMaintenanceReason(std::string_view text) {
  if (text.empty() || !PrintableLine(text) || text.front() == ' ' || text.back() == ' ') {
    return "is not a Slurm reason (one line of printable ASCII, no space first or last)";
  }
  if (text.substr(0, kHealthDrainPrefix.size()) == kHealthDrainPrefix) {
    return "starts '" + std::string(kHealthDrainPrefix) +
           "', the health check's own drains, which it resumes once its checks pass: take another prefix "
           "(clusterctl-maintenance: ...)";
  }
  return "";
}

// A directory root alone may write: an absolute path (the `path` syntax)
// outside the directories every user may create entries in on Debian
// (/tmp, /var/tmp, /dev/shm, /run/shm, /run/lock, /var/lock: 1777) and
// users' own runtime directories (/run/user). Below one of those, any user
// can make the directory first (after every reboot, for /tmp) and fill it,
// and root's writes into it meet the user's links.
std::string RootDirectory(std::string_view text) {
  if (std::string why = Path(text); !why.empty()) return why;
  std::string normal;  // "//" and "/./" collapsed: /tmp/./x is /tmp/x
  for (const std::string& part : Split(std::string(text), '/')) {
    if (!part.empty() && part != ".") normal += "/" + part;
  }
  for (const char* shared : {"/tmp", "/var/tmp", "/dev/shm", "/run/shm", "/run/lock", "/var/lock", "/run/user"}) {
    const std::string prefix = shared;
    if (normal == prefix || normal.rfind(prefix + "/", 0) == 0) {
      return "is in " + prefix + ", where every user may create directories: not a directory root alone writes";
    }
  }
  return "";
}

// Slurm's accounting values, as the slurm_accounting resource kind takes them.
std::string SlurmName(std::string_view text) { return agent::slurm_accounting::NameRefusal(text); }
std::string SlurmTres(std::string_view text) { return agent::slurm_accounting::TresRefusal(text); }
std::string SlurmTime(std::string_view text) { return agent::slurm_accounting::TimeRefusal(text); }

// A MIG layout (a list: its items joined by ','), as the nvidia_mig resource kind takes it.
std::string MigLayout(std::string_view text) { return agent::nvidia_mig::LayoutRefusal(text); }

const ValueSyntax kSyntaxes[] = {
    {"word", Word},       {"address", Address}, {"port", Port}, {"address:port", AddressPort},
    {"duration", Duration}, {"path", Path},     {"ib-port", IbPort}, {"size", Size},
    {"user-name", UserName}, {"ldap-dn", LdapDn}, {"ldap-uri", LdapUri},
    {"url", Url},         {"email", Email},
    {"slurm-name", SlurmName}, {"slurm-tres", SlurmTres}, {"slurm-time", SlurmTime},
    {"gecos", Gecos}, {"login-shell", LoginShell}, {"slurm-description", SlurmDescription},
    {"root-directory", RootDirectory}, {"mig-layout", MigLayout},
    {"slurm-maintenance-reason", SlurmMaintenanceReason},
};

}  // namespace

std::optional<int64_t> PrometheusDurationMs(std::string_view text) {
  static constexpr std::pair<std::string_view, int64_t> kUnits[] = {
      {"ms", 1}, {"y", 365 * 86400000LL}, {"w", 7 * 86400000LL}, {"d", 86400000LL},
      {"h", 3600000LL}, {"m", 60000LL}, {"s", 1000LL}};  // "ms" before "m"
  constexpr int64_t kMaxNumber = 1000000000;  // a bound on each number, so the sum cannot overflow
  int64_t total = 0;
  size_t at = 0;
  while (at < text.size()) {
    const size_t digits_end = text.find_first_not_of("0123456789", at);
    if (digits_end == at || digits_end == std::string_view::npos || digits_end - at > 9) return std::nullopt;
    const int64_t number = std::stoll(std::string(text.substr(at, digits_end - at)));
    const std::string_view rest = text.substr(digits_end);
    int64_t unit_ms = 0;
    size_t unit_size = 0;
    for (const auto& [unit, ms] : kUnits) {
      if (rest.substr(0, unit.size()) == unit) {
        unit_ms = ms;
        unit_size = unit.size();
        break;
      }
    }
    if (unit_ms == 0 || number > kMaxNumber) return std::nullopt;
    total += number * unit_ms;
    at = digits_end + unit_size;
  }
  if (text.empty()) return std::nullopt;
  return total;
}

const ValueSyntax* FindValueSyntax(std::string_view name) {
  for (const ValueSyntax& syntax : kSyntaxes) {
    if (name == syntax.name) return &syntax;
  }
  return nullptr;
}

std::vector<std::string> ValueSyntaxNames() {
  std::vector<std::string> names;
  for (const ValueSyntax& syntax : kSyntaxes) names.push_back(syntax.name);
  return names;
}

}  // namespace clusterctl
