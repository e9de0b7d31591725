#include "controller/catalog/file_format.h"

#include "common/strings.h"

namespace clusterctl {
namespace {

bool Has(std::string_view text, std::string_view characters) {
  return text.find_first_of(characters) != std::string_view::npos;
}

bool HasSpace(std::string_view text) { return Has(text, " \t"); }

// What every configuration file refuses: a value that adds a line.
std::string LineBreak(std::string_view text) {
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n' || c == '\r') return "contains a line break: it would add a line to the file";
    if ((u < 0x20 && c != '\t') || u == 0x7f) return "contains a control character";
  }
  return "";
}

// The characters that open or close a quoted value in `format` (none: the
// format has no quoting a template relies on).
std::string_view QuotesOf(FileFormat format) {
  switch (format) {
    case FileFormat::kSlurm: return "\"";
    case FileFormat::kYaml:
    case FileFormat::kSystemd:
    case FileFormat::kEnvironment: return "\"'";
    default: return "";
  }
}

std::string_view CommentStartsOf(FileFormat format) {
  switch (format) {
    case FileFormat::kSlurm:
    case FileFormat::kYaml:
    case FileFormat::kEnvironment:
    case FileFormat::kLdif:
    case FileFormat::kRsyslog: return "#";
    case FileFormat::kIni:
    case FileFormat::kSystemd: return "#;";
    default: return "";
  }
}

std::string Slurm(ValuePlace place, std::string_view text) {
  if (Has(text, "#")) return "contains '#': slurm.conf would read the rest of the line as a comment";
  if (Has(text, "\"")) return "contains '\"': it would open or close a quoted slurm.conf value";
  if (place == ValuePlace::kBare && HasSpace(text)) {
    return "contains a space: a slurm.conf value is one word, the rest would be read as more KEY=VALUE settings";
  }
  return "";
}

std::string Ini(std::string_view text) {
  if (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.back() == ' ' || text.back() == '\t')) {
    return "starts or ends with a space, which an INI file drops";
  }
  if (Has(text, ";#")) return "contains ';' or '#': an INI file would read the rest as a comment";
  if (Has(text, "$")) return "contains '$': Grafana expands $__env{...}, $__file{...} and ${...} in INI values";
  if (Has(text, "\"`\\")) return "contains a quote or '\\': an INI file would read it as quoting or an escape";
  return "";
}

std::string YamlPlain(ValuePlace place, std::string_view text) {
  if (text.empty()) return "";
  if (text.front() == ' ' || text.front() == '\t' || text.back() == ' ' || text.back() == '\t') {
    return "starts or ends with a space, which YAML drops";
  }
  if (place == ValuePlace::kWithin) {
    if (text.back() == ':' || text.back() == ' ' || text.back() == '\t') return "ends with ':' or a space, which YAML reads as syntax";
    if (text.find(": ") != std::string_view::npos) return "contains ': ': YAML would read a mapping";
    if (text.find(" #") != std::string_view::npos) return "contains ' #': YAML would read the rest as a comment";
    return "";
  }
  const char first = text.front();
  const bool indicator_then_space = Has(std::string_view(&first, 1), "-?:") && (text.size() == 1 || text[1] == ' ');
  if (Has(std::string_view(&first, 1), ",[]{}#&*!|>'\"%@`") || indicator_then_space) {
    return std::string("starts with '") + first + "', which YAML reads as syntax, not text";
  }
  if (text.find(": ") != std::string_view::npos || text.back() == ':') {
    return "contains ': ': YAML would read a mapping";
  }
  if (text.find(" #") != std::string_view::npos) return "contains ' #': YAML would read the rest as a comment";
  if (place == ValuePlace::kFlow && Has(text, ",[]{}")) {
    return "contains ',', a bracket or a brace: it would end the value in a YAML [...] or {...}";
  }
  return "";
}

std::string Yaml(ValuePlace place, std::string_view text) {
  switch (place) {
    case ValuePlace::kSingleQuoted:
      return Has(text, "'") ? "contains \"'\": it would end the single-quoted YAML string" : "";
    case ValuePlace::kDoubleQuoted:
      return Has(text, "\"\\") ? "contains '\"' or '\\': it would end the double-quoted YAML string or start an escape" : "";
    default: return YamlPlain(place, text);
  }
}

std::string Systemd(ValuePlace place, std::string_view text) {
  if (Has(text, "%")) return "contains '%': systemd reads %-specifiers";
  if (Has(text, "$")) return "contains '$': systemd expands $VAR and ${VAR} in command lines";
  if (Has(text, "\\")) return "contains '\\': systemd reads escapes";
  if (place == ValuePlace::kDoubleQuoted && Has(text, "\"")) return "contains '\"': it would end the quoted systemd value";
  if (place == ValuePlace::kSingleQuoted && Has(text, "'")) return "contains \"'\": it would end the quoted systemd value";
  if (place == ValuePlace::kBare) {
    if (HasSpace(text)) return "contains a space: systemd splits a command line or Environment= there";
    if (Has(text, "\"'")) return "contains a quote: systemd would read a quoted word";
    if (Has(text, ";")) return "contains ';': systemd reads it as the end of a command";
  }
  return "";
}

// /etc/default files are read by sh (init scripts) and by systemd's
// EnvironmentFile=, and Debian's units pass $ARGS split at whitespace, so a
// value is a word both read alike, whatever quotes the template puts around it.
std::string Environment(std::string_view text) {
  if (!text.empty() && !IsAlnumOr(text, "_./:@%+=,[]-")) {
    return "has characters other than letters, digits and _ . / : @ % + = , [ ] -: an /etc/default value is one "
           "word that sh and systemd read alike";
  }
  return "";
}

// An LDIF value written as `attr: value` must be a SAFE-STRING (RFC 2849):
// ASCII, no line break, not starting with a space, ':' or '<' (which would
// make it base64, a URL or part of the separator); a trailing space is
// dropped by some readers. Values also land in DNs (uid=NAME,ou=people,BASE),
// so RFC 4514's special characters are refused too, except ',' and '=',
// which a base DN is made of: the names that become one RDN value have a
// syntax without them (user-name), and a base DN has its own (ldap-dn).
std::string Ldif(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) > 0x7e) return "is not plain ASCII: LDIF would need it base64-encoded";
  }
  if (!text.empty() && Has(text.substr(0, 1), " :<")) {
    return "starts with a space, ':' or '<': LDIF would read it as part of the separator, base64 or a URL";
  }
  if (!text.empty() && HasSpace(text.substr(text.size() - 1))) return "ends with a space, which LDIF readers may drop";
  if (Has(text, "\\\"+;<>#\t")) {
    return "contains one of \\ \" + ; < > # or a tab: special in a DN (RFC 4514) or an LDIF line";
  }
  return "";
}

// RainerScript (rsyslog's configuration): a string constant ends at its
// quote and reads backslash escapes, a template string reads %PROPERTY% and
// $!variables, a backquoted one runs a command, '#' starts a comment, and a
// line break, '(' or ')' a new statement. A value is one word of the
// characters an address, a port, a path or a size is made of, so it reads
// the same quoted or bare.
std::string Rsyslog(std::string_view text) {
  if (!text.empty() && !IsAlnumOr(text, "._/:@+,=[]-")) {
    return "has characters other than letters, digits and . _ / : @ + , = [ ] -: rsyslog's configuration could read "
           "them as quoting, an escape, a property, a comment or a new statement";
  }
  return "";
}

}  // namespace

FileFormat FileFormatOf(std::string_view name) {
  if (EndsWith(name, ".mustache")) name.remove_suffix(9);
  const size_t slash = name.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? name : name.substr(slash + 1);
  if (EndsWith(name, ".sql")) return FileFormat::kSql;
  if (EndsWith(name, ".sh")) return FileFormat::kShell;
  if (EndsWith(name, ".ldif")) return FileFormat::kLdif;
  if ((base.rfind("rsyslog", 0) == 0 && EndsWith(base, ".conf")) || name.find("rsyslog.d/") != std::string_view::npos) {
    return FileFormat::kRsyslog;
  }
  if (base == "slurm.conf" || base == "slurmdbd.conf" || base == "cgroup.conf" || base == "gres.conf") {
    return FileFormat::kSlurm;
  }
  if (EndsWith(name, ".ini")) return FileFormat::kIni;
  if (EndsWith(name, ".yml") || EndsWith(name, ".yaml")) return FileFormat::kYaml;
  for (std::string_view suffix : {".service", ".socket", ".timer", ".mount", ".netdev", ".network"}) {
    if (EndsWith(name, suffix)) return FileFormat::kSystemd;
  }
  if (name.find("/systemd/") != std::string_view::npos) return FileFormat::kSystemd;
  if (EndsWith(name, ".default") || name.rfind("/etc/default/", 0) == 0) return FileFormat::kEnvironment;
  return FileFormat::kLines;
}

ValuePlace PlaceAfter(FileFormat format, std::string_view line_before) {
  const size_t first = line_before.find_first_not_of(" \t");
  if (first != std::string_view::npos && Has(CommentStartsOf(format), line_before.substr(first, 1))) {
    return ValuePlace::kComment;
  }
  const std::string_view quotes = QuotesOf(format);
  char open_quote = 0;
  int flow_depth = 0;
  for (char c : line_before) {
    if (open_quote) {
      if (c == open_quote) open_quote = 0;
    } else if (quotes.find(c) != std::string_view::npos) {
      open_quote = c;
    } else if (format == FileFormat::kYaml && (c == '[' || c == '{')) {
      ++flow_depth;
    } else if (format == FileFormat::kYaml && (c == ']' || c == '}') && flow_depth > 0) {
      --flow_depth;
    }
  }
  if (open_quote == '"') return ValuePlace::kDoubleQuoted;
  if (open_quote == '\'') return ValuePlace::kSingleQuoted;
  if (flow_depth > 0) return ValuePlace::kFlow;
  if (format == FileFormat::kYaml) {
    // A plain scalar starts after indentation, "key: ", "- " or "? ".
    const size_t last = line_before.find_last_not_of(" \t");
    const bool starts = last == std::string_view::npos ||
                        (last + 1 < line_before.size() && Has(line_before.substr(last, 1), ":-?"));
    if (!starts) return ValuePlace::kWithin;
  }
  return ValuePlace::kBare;
}

std::string UnsafeValue(FileFormat format, ValuePlace place, std::string_view text) {
  switch (format) {
    case FileFormat::kSql:
      if (text.empty()) return "is empty: an SQL name cannot be";
      if (!IsAlnumOr(text, "_")) return "is not plain letters, digits and '_': in SQL it could end the statement it is part of";
      return "";
    case FileFormat::kShell:
      if (text.empty() || text[0] == '-') return "would be read as an option or nothing by the shell script";
      if (!IsAlnumOr(text, "_./:@%+=,-")) return "has characters a shell script would interpret";
      return "";
    default: break;
  }
  if (std::string broken = LineBreak(text); !broken.empty()) return broken;
  if (place == ValuePlace::kComment) return "";
  switch (format) {
    case FileFormat::kSlurm: return Slurm(place, text);
    case FileFormat::kIni: return Ini(text);
    case FileFormat::kYaml: return Yaml(place, text);
    case FileFormat::kSystemd: return Systemd(place, text);
    case FileFormat::kEnvironment: return Environment(text);
    case FileFormat::kLdif: return Ldif(text);
    case FileFormat::kRsyslog: return Rsyslog(text);
    default: return "";
  }
}

bool AllowsRawInsertion(FileFormat format) {
  return format != FileFormat::kSql && format != FileFormat::kShell && format != FileFormat::kLdif &&
         format != FileFormat::kRsyslog;
}

const char* FileFormatName(FileFormat format) {
  switch (format) {
    case FileFormat::kLines: return "configuration";
    case FileFormat::kSlurm: return "slurm.conf";
    case FileFormat::kIni: return "INI";
    case FileFormat::kYaml: return "YAML";
    case FileFormat::kSystemd: return "systemd";
    case FileFormat::kEnvironment: return "/etc/default";
    case FileFormat::kSql: return "SQL";
    case FileFormat::kShell: return "shell";
    case FileFormat::kLdif: return "LDIF";
    case FileFormat::kRsyslog: return "rsyslog";
  }
  return "configuration";
}

}  // namespace clusterctl
