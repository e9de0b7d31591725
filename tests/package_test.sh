#!/usr/bin/env bash
# The Debian package (scripts/package.sh) passes lintian, Debian's package
# checker: no error and no warning, except the overrides the package ships
# (packaging/debian/lintian-overrides, each with its reason). Skipped where
# dpkg-dev or lintian is missing (scripts/install-deps.sh --daemon installs both).
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
for tool in dpkg-shlibdeps lintian; do
  command -v "$tool" >/dev/null || { echo "skip - $tool is not installed (scripts/install-deps.sh --daemon)"; exit 0; }
done
failures=0
pass() { echo "ok   - $1"; }
fail() { echo "FAIL - $1"; failures=$((failures + 1)); }

started=$SECONDS
deb=$("$SRC/scripts/package.sh") || { echo "FAIL - scripts/package.sh"; exit 1; }
echo "# scripts/package.sh: $((SECONDS - started)) s"
contents=$(dpkg-deb -c "$deb")
grep -q ' \./usr/share/doc/clusterctl/copyright$' <<<"$contents" && pass "the package has its copyright file" ||
  fail "no /usr/share/doc/clusterctl/copyright in $deb"
grep -q ' \./usr/share/man/man1/clusterctl\.1\.gz$' <<<"$contents" && pass "the man page is compressed" ||
  fail "no /usr/share/man/man1/clusterctl.1.gz in $deb"
# lintian refuses to run as root only with a warning on stderr; its tags go to stdout.
started=$SECONDS
report=$(lintian --tag-display-limit 0 --fail-on error,warning "$deb" 2>/dev/null); rc=$?
echo "# lintian: $((SECONDS - started)) s"
if [ "$rc" -eq 0 ] && ! grep -qE '^[EW]: ' <<<"$report"; then
  pass "lintian: no error, no warning (beyond packaging/debian/lintian-overrides, each justified there)"
else
  fail "lintian (exit $rc): $report"
fi
[ "$failures" -eq 0 ] && echo "all package tests passed" || { echo "$failures package test(s) failed"; exit 1; }
