# Sourced by the shell tests: `expect CODE DESCRIPTION -- command...` runs the
# command, compares its exit code and counts failures in $fails (output in $work/out).
fails=${fails:-0}
expect() {
  local want=$1 what=$2
  shift 3
  "$@" >"$work/out" 2>&1
  local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $what: exit $got, expected $want"; sed 's/^/    /' "$work/out" | head -20; fails=$((fails + 1))
  else
    echo "ok:   $what"
  fi
}
