# docs/cli.md's synopsis block names exactly each command's options as --help shows them, by their
# short or long name (the options every command has: -h, -v, -q, --log-level and -i/--inventory,
# are described once below the block instead).
help_options() {  # COMMAND...: "SHORT LONG" (SHORT may be -) per option
  "$CLUSTERCTL" "$@" --help | grep -oE '^  (-[A-Za-z],)?--[a-z][a-z-]*' |
    sed -E 's/^  //; s/^(-[A-Za-z]),/\1 /; s/^--/- --/' |
    grep -vE -- ' --(help|verbose|quiet|log-level|inventory)$'
}
documented_options() {  # COMMAND...: the option names on its synopsis lines in docs/cli.md
  awk -v cmd="clusterctl $* " 'index($0, cmd) == 1 { on = 1; print; next }
    on && /^                    / { print; next } { on = 0 }' "$SRC/docs/cli.md" |
    grep -oE -- '(^|[[ ])--?[A-Za-z][a-z-]*' | grep -oE -- '--?[A-Za-z][a-z-]*' | sort -u
}
for cmd in "inventory check" "inventory show" "inventory import" status hold facts run "hostkey forget" "power status" "power on" "power off" "power cycle" "power reset" "power sel" deploy plan validate checks history serve "roles list" "roles show" vars; do
  documented=$(documented_options $cmd)
  problems=""
  names=""
  while read -r short long; do
    [ -n "$long" ] || continue
    names="$names $short $long"
    grep -qxF -- "$long" <<<"$documented" || grep -qxF -- "$short" <<<"$documented" || problems="$problems; lacks $long"
  done < <(help_options $cmd)
  for name in $documented; do
    [[ " $names " == *" $name "* ]] || problems="$problems; lists $name, which --help lacks"
  done
  [ -z "$problems" ] && pass "docs/cli.md synopsis of '$cmd' matches --help" || fail "docs/cli.md synopsis of '$cmd'$problems"
done
