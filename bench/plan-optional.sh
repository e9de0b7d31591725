#!/usr/bin/env bash
# Plans the optional roles (directory: ldap-server + sssd; containers: crun,
# registry, pyxis + enroot, nvidia-container-toolkit; cuda-toolkit) on the
# developer's running testbed (scripts/setup.sh's, either release), with
# e2e_slurm's site values (tests/e2e/slurm_test.sh site_vars) in a copy of
# its inventory (optional.yaml beside it, with a throw-away TLS CA and NGC
# credentials). Read-only on the nodes: `plan`. docs/platforms.md cites its
# Debian 13 result.
#
#   sudo bench/plan-optional.sh [OUTDIR]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
TB=tests/testbed/testbed
INV=$($TB inventory)
S=$(dirname "$INV")
OUT=${1:-$(mktemp -d /tmp/clusterctl-optional-XXXXXX)}
mkdir -p "$OUT" "$S/directory-tls"
d=$S/directory-tls
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/ca.key" -out "$d/ca.pem" -days 7 \
  -subj "/CN=testbed directory CA" -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/server.key" -out "$d/server.csr" -subj /CN=node01 2>/dev/null
printf 'subjectAltName=DNS:node01\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$d/ext"
openssl x509 -req -in "$d/server.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial -out "$d/server.pem" -days 7 -extfile "$d/ext" 2>/dev/null
# shellcheck disable=SC2016 # netrc's literal login name
printf 'machine nvcr.io login $oauthtoken password %s\n' "$(head -c 24 /dev/urandom | base64 | tr -d '/+=')" >"$S/ngc.netrc"
O=$S/optional.yaml
cp "$INV" "$O"
repo=$(sed -n 's/^  nvidia_driver_repository: //p' "$O")
sed -i "s|^vars:\$|vars:\n  pyxis_repository: $repo\n  pyxis_repository_trusted: true\n  enroot_credentials_file: ngc.netrc|" "$O"
sed -i 's/^groups:$/groups:\n  directory:\n    hosts: node01/' "$O"
sed -i '/^vars:$/r /dev/stdin' "$O" <<'YAML'
  ldap_tls_ca_file: directory-tls/ca.pem
  ldap_tls_cert_file: directory-tls/server.pem
  ldap_tls_key_file: directory-tls/server.key
  directory_users:
    - {name: carol, uid: 5001, gid: 5000, gecos: Carol Shaw}
  directory_groups:
    - {name: research, gid: 5000, members: [carol]}
  cuda_toolkit_versions: ["12-4", "12-6"]
  containers_runtime: crun
  registry_mode: local
  registry_tls_ca_file: directory-tls/ca.pem
  registry_tls_cert_file: directory-tls/server.pem
  registry_tls_key_file: directory-tls/server.key
YAML
cp "$O" "$OUT/optional.yaml"
build/clusterctl inventory check "$O" >"$OUT/check.txt" 2>&1; echo "# inventory check: exit $?"
start=$(date +%s)
build/clusterctl plan "$O" >"$OUT/plan.txt" 2>&1; echo "# plan: exit $? in $(( $(date +%s) - start )) s"
build/clusterctl plan --json "$O" >"$OUT/plan.json" 2>&1; echo "# plan --json: exit $?"
tail -40 "$OUT/plan.txt"
