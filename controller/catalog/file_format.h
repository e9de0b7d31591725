// The syntax of a value in the kind of file a template writes: what a value
// {{name}} inserts may hold without breaking out of its place (docs/roles.md,
// docs/security.md). A template's format comes from its file name; where a
// tag sits on its line (bare, inside quotes, in a comment) comes from the
// template text before it on that line. Both are known when the template is
// parsed, so rendering and `inventory check` refuse the same values.
#pragma once

#include <string>
#include <string_view>

namespace clusterctl {

enum class FileFormat {
  kLines,        // any configuration file: one line (no line break or control character; tab allowed)
  kSlurm,        // slurm.conf and its family: KEY=VALUE, whitespace-separated, '#' comments
  kIni,          // *.ini (Grafana's go-ini): inline ';'/'#' comments, $__env{...} expansion
  kYaml,         // *.yml, *.yaml: plain, single- and double-quoted scalars
  kSystemd,      // unit files and drop-ins: %-specifiers, $VAR and whitespace splitting in Exec/Environment
  kEnvironment,  // /etc/default/* (*.default): sourced by sh, read by EnvironmentFile=, $ARGS split at whitespace
  kSql,          // *.sql: letters, digits and '_' (safe as an identifier and inside quotes)
  kShell,        // *.sh: a word that needs no quoting, not starting with '-'
  kLdif,         // *.ldif: LDIF's SAFE-STRING (RFC 2849) without a DN's special characters but ',' and '=' (RFC 4514)
  kRsyslog,      // rsyslog*.conf, anything under an rsyslog.d/ directory: RainerScript, a value is one plain word
};

// Where a tag sits on its line. kFlow: bare inside a YAML flow collection
// ([...] or {...}), where ',', brackets and braces end the value. kWithin:
// bare in YAML after other text of the same plain scalar (`url: http://{{x}}`),
// so its first character is not the scalar's.
enum class ValuePlace { kBare, kFlow, kWithin, kDoubleQuoted, kSingleQuoted, kComment };

// The format of a file by its name or path (a trailing ".mustache" ignored):
// *.sql kSql; *.sh kShell; *.ldif kLdif; rsyslog*.conf and anything under
// an rsyslog.d/ directory kRsyslog; slurm.conf, slurmdbd.conf, cgroup.conf, gres.conf
// kSlurm; *.ini kIni; *.yml/*.yaml kYaml; *.service, *.socket, *.timer,
// *.mount, *.netdev, *.network and anything under a systemd/ directory
// kSystemd; *.default and anything under /etc/default/ kEnvironment; else kLines.
FileFormat FileFormatOf(std::string_view name);

// The place of a tag whose line begins with `line_before` (the template's
// text on the same line before the tag; values inserted earlier on the line
// count as nothing).
ValuePlace PlaceAfter(FileFormat format, std::string_view line_before);

// Why `text` may not be inserted at `place` in a file of `format` ("" when it
// may), as the end of a sentence about the value ("contains a space: ...").
std::string UnsafeValue(FileFormat format, ValuePlace place, std::string_view text);

// Whether a template of `format` may insert a value raw ({{&...}}): text an
// admin wrote on purpose, as configuration files take it. SQL, shell, LDIF
// and rsyslog templates may not: every value there is checked.
bool AllowsRawInsertion(FileFormat format);

// "slurm.conf", "INI", ...: the format in messages.
const char* FileFormatName(FileFormat format);

}  // namespace clusterctl
