#include "controller/catalog/file_format.h"

#include <doctest/doctest.h>

namespace clusterctl {
namespace {

bool Refused(FileFormat format, ValuePlace place, const std::string& text) {
  return !UnsafeValue(format, place, text).empty();
}

TEST_CASE("a file's format comes from its template name or path") {
  CHECK(FileFormatOf("slurm.conf.mustache") == FileFormat::kSlurm);
  CHECK(FileFormatOf("slurmdbd.conf.mustache") == FileFormat::kSlurm);
  CHECK(FileFormatOf("grafana.ini.mustache") == FileFormat::kIni);
  CHECK(FileFormatOf("prometheus.yml.mustache") == FileFormat::kYaml);
  CHECK(FileFormatOf("clusterctl-slurm-exporter.service.mustache") == FileFormat::kSystemd);
  CHECK(FileFormatOf("/etc/systemd/system/x.service.d/listen.conf") == FileFormat::kSystemd);
  CHECK(FileFormatOf("prometheus.default.mustache") == FileFormat::kEnvironment);
  CHECK(FileFormatOf("/etc/default/prometheus") == FileFormat::kEnvironment);
  CHECK(FileFormatOf("grants.sql.mustache") == FileFormat::kSql);
  CHECK(FileFormatOf("remove.sh.mustache") == FileFormat::kShell);
  CHECK(FileFormatOf("directory.ldif.mustache") == FileFormat::kLdif);
  CHECK(FileFormatOf("chrony.conf.mustache") == FileFormat::kLines);
  CHECK(FileFormatOf("rsyslog-forward.conf.mustache") == FileFormat::kRsyslog);
  CHECK(FileFormatOf("/etc/rsyslog.d/60-clusterctl.conf") == FileFormat::kRsyslog);
  CHECK(FileFormatOf("/etc/logrotate.d/rsyslog") == FileFormat::kLines);
}

TEST_CASE("a tag's place is read from the text before it on its line") {
  CHECK(PlaceAfter(FileFormat::kSlurm, "SelectTypeParameters=") == ValuePlace::kBare);
  CHECK(PlaceAfter(FileFormat::kSlurm, "X=\"") == ValuePlace::kDoubleQuoted);
  CHECK(PlaceAfter(FileFormat::kSlurm, "X=\"a\" Y=") == ValuePlace::kBare);
  CHECK(PlaceAfter(FileFormat::kSlurm, "  # not yet listed: ") == ValuePlace::kComment);
  CHECK(PlaceAfter(FileFormat::kSlurm, "X='") == ValuePlace::kBare);  // no single quotes in slurm.conf
  CHECK(PlaceAfter(FileFormat::kYaml, "- targets: ['") == ValuePlace::kSingleQuoted);
  CHECK(PlaceAfter(FileFormat::kYaml, "labels: {severity: critical, mountpoint: ") == ValuePlace::kFlow);
  CHECK(PlaceAfter(FileFormat::kYaml, "scrape_interval: ") == ValuePlace::kBare);
  CHECK(PlaceAfter(FileFormat::kYaml, "    ") == ValuePlace::kBare);
  CHECK(PlaceAfter(FileFormat::kYaml, "  - ") == ValuePlace::kBare);
  CHECK(PlaceAfter(FileFormat::kYaml, "    url: http://") == ValuePlace::kWithin);
  CHECK(PlaceAfter(FileFormat::kIni, "; comment ") == ValuePlace::kComment);
}

TEST_CASE("slurm.conf: a bare value is one word; a quoted one may hold spaces (issue 31)") {
  const std::string evil = "CR_Core_Memory Prolog=/tmp/evil.sh";
  CHECK(UnsafeValue(FileFormat::kSlurm, ValuePlace::kBare, evil).find("contains a space") == 0);
  CHECK_FALSE(Refused(FileFormat::kSlurm, ValuePlace::kDoubleQuoted, evil));
  CHECK(Refused(FileFormat::kSlurm, ValuePlace::kBare, "a\tb"));
  CHECK(Refused(FileFormat::kSlurm, ValuePlace::kBare, "x#y"));
  CHECK(Refused(FileFormat::kSlurm, ValuePlace::kDoubleQuoted, "x\" Prolog=/tmp/evil.sh \"y"));
  CHECK(Refused(FileFormat::kSlurm, ValuePlace::kBare, "1024\nPartitionName=evil"));
  CHECK(Refused(FileFormat::kSlurm, ValuePlace::kComment, "a\nb"));
  CHECK_FALSE(Refused(FileFormat::kSlurm, ValuePlace::kComment, "gpu[01-04], login1"));
  CHECK_FALSE(Refused(FileFormat::kSlurm, ValuePlace::kBare, "task/affinity,task/cgroup"));
}

TEST_CASE("LDIF: a SAFE-STRING (RFC 2849) without a DN's special characters (RFC 4514)") {
  for (const char* good : {"alice", "Alice Smith", "/bin/bash", "dc=example,dc=org", "5001", "a.b-c_d@e"}) {
    CAPTURE(good);
    CHECK_FALSE(Refused(FileFormat::kLdif, ValuePlace::kBare, good));
  }
  // A second line (a new attribute or entry), base64 (':'), a URL ('<'), a
  // continuation (' '), DN injection (+ \\ \" ; < > #), a dropped space, non-ASCII.
  for (const char* bad : {"x\nuserPassword: y", "x\r\ndn: cn=evil", ": eA==", "<file:///etc/shadow", " lead", "trail ",
                          "a+uid=root", "a\\,b", "a\"b", "a;b", "a<b", "a>b", "#a", "caf\xc3\xa9", "a\tb"}) {
    CAPTURE(bad);
    CHECK(Refused(FileFormat::kLdif, ValuePlace::kBare, bad));
  }
  CHECK(PlaceAfter(FileFormat::kLdif, "# written for ") == ValuePlace::kComment);
  CHECK_FALSE(Refused(FileFormat::kLdif, ValuePlace::kComment, "a#b;c"));
}

TEST_CASE("rsyslog: a value is one plain word, quoted or bare (issue 38)") {
  for (const char* good : {"10.0.0.1", "logs.example.org", "fd00::1", "514", "1G", "/var/log/cluster", "node-01_a"}) {
    CAPTURE(good);
    CHECK_FALSE(Refused(FileFormat::kRsyslog, ValuePlace::kBare, good));
  }
  // Out of a quoted string, an escape, a property or variable, a command, a
  // comment, a new statement or parameter, a second line.
  for (const char* bad : {"x\" port=\"1", "a\\", "%msg%", "$!x", "`id`", "a#b", "a)b", "a b", "x\naction(type=\"omfwd\")"}) {
    CAPTURE(bad);
    CHECK(Refused(FileFormat::kRsyslog, ValuePlace::kBare, bad));
    CHECK(Refused(FileFormat::kRsyslog, ValuePlace::kDoubleQuoted, bad));
  }
  CHECK(PlaceAfter(FileFormat::kRsyslog, "# written for ") == ValuePlace::kComment);
  CHECK_FALSE(AllowsRawInsertion(FileFormat::kRsyslog));
}

TEST_CASE("INI (grafana.ini): no comment, expansion, quote or outer space") {
  CHECK_FALSE(Refused(FileFormat::kIni, ValuePlace::kBare, "10.0.0.1"));
  CHECK_FALSE(Refused(FileFormat::kIni, ValuePlace::kBare, "a value with spaces"));
  for (const char* bad : {"0.0.0.0 ;x", "a#b", "$__file{/etc/shadow}", "${HOME}", " padded", "\"q\"", "a\\", "a\nb"}) {
    CAPTURE(bad);
    CHECK(Refused(FileFormat::kIni, ValuePlace::kBare, bad));
  }
}

TEST_CASE("YAML: plain scalars keep their syntax, quoted ones their quotes") {
  CHECK_FALSE(Refused(FileFormat::kYaml, ValuePlace::kBare, "15s"));
  CHECK_FALSE(Refused(FileFormat::kYaml, ValuePlace::kBare, "http://[fd00::1]:9090"));
  CHECK_FALSE(Refused(FileFormat::kYaml, ValuePlace::kBare, "-1"));
  for (const char* bad : {"15s\nx: y", "a: b", "a #b", "*alias", "[x]", "{a: 1}", "'q'", "- x", " x", "x:"}) {
    CAPTURE(bad);
    CHECK(Refused(FileFormat::kYaml, ValuePlace::kBare, bad));
  }
  CHECK(Refused(FileFormat::kYaml, ValuePlace::kFlow, "a,b"));
  CHECK_FALSE(Refused(FileFormat::kYaml, ValuePlace::kWithin, "[fd00::1]:9090"));
  CHECK(Refused(FileFormat::kYaml, ValuePlace::kWithin, "x: y"));
  CHECK(Refused(FileFormat::kYaml, ValuePlace::kWithin, "x #y"));
  CHECK_FALSE(Refused(FileFormat::kYaml, ValuePlace::kSingleQuoted, "a: b, \"c\" #d"));
  CHECK(Refused(FileFormat::kYaml, ValuePlace::kSingleQuoted, "x'], evil: ['y"));
  CHECK(Refused(FileFormat::kYaml, ValuePlace::kDoubleQuoted, "x\""));
  CHECK(Refused(FileFormat::kYaml, ValuePlace::kDoubleQuoted, "x\\"));
}

TEST_CASE("systemd: a bare value is one word with no specifier, variable, quote or ';'") {
  CHECK_FALSE(Refused(FileFormat::kSystemd, ValuePlace::kBare, "[fd00::1]:9400"));
  for (const char* bad : {"0.0.0.0:9400 OTHER=1", "%h", "$PATH", "a;b", "\"a\"", "a\\x20", "a\nb"}) {
    CAPTURE(bad);
    CHECK(Refused(FileFormat::kSystemd, ValuePlace::kBare, bad));
  }
  CHECK_FALSE(Refused(FileFormat::kSystemd, ValuePlace::kDoubleQuoted, "a b"));
  CHECK(Refused(FileFormat::kSystemd, ValuePlace::kDoubleQuoted, "a\" b"));
}

TEST_CASE("/etc/default: one word that sh and systemd read alike, wherever the template puts it") {
  CHECK_FALSE(Refused(FileFormat::kEnvironment, ValuePlace::kDoubleQuoted, "/var/lib/prometheus/node-exporter"));
  CHECK_FALSE(Refused(FileFormat::kEnvironment, ValuePlace::kDoubleQuoted, "[::1]:9100"));
  for (const char* bad : {"/x --collector.disable-defaults", "$(id)", "`id`", "a\"b", "a'b", "a\\b", "x;y"}) {
    CAPTURE(bad);
    CHECK(Refused(FileFormat::kEnvironment, ValuePlace::kDoubleQuoted, bad));
    CHECK(Refused(FileFormat::kEnvironment, ValuePlace::kBare, bad));
  }
}

}  // namespace
}  // namespace clusterctl
