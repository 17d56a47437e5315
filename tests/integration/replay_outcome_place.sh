#!/bin/bash
# replay_outcome_place.sh - the file the replay keeps its results in (its
# calls' times and results, 24 bytes a call) never goes under --root,
# whose space the replay measures: not when the profile (-o) is written
# under the root, and not when TMPDIR is there too; it goes to the
# profile's directory when that is outside the root.
set -u
. "$(dirname "$0")/lib.sh"
"$IOTAPE" record -q -o /dev/null -- true >/dev/null 2>&1 || skip "cannot ptrace here"
command -v strace >/dev/null || fail "strace not installed (make check installs it)"

T=$(mktemp -d "${TMPDIR:-/tmp}/iotape-outplace.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/w" "$T/out" "$T/r1" "$T/r2"
(cd "$T/w" && "$IOTAPE" record -q -o "$T/t.iotape" -- sh -c 'echo data >f; cat f >g') ||
	fail "recording failed"

# the directories the replay opened with O_TMPFILE, or its named fallback
tmpdirs() {
	grep -E 'O_TMPFILE|iotape-outcome' "$1" | sed -E 's/^[0-9]+ +//; s/^[a-z0-9]+\((AT_FDCWD, )?"([^"]*)".*/\2/'
}

run() {	# run NAME ROOT PROFILE [TMPDIR]
	local n=$1 root=$2 prof=$3 tmp=${4:-$T}
	TMPDIR=$tmp strace -f -qq -e trace=open,openat -o "$T/$n.st" \
		"$IOTAPE" replay "$T/t.iotape" --root "$root" --force -o "$prof" >"$T/$n.out" 2>&1 ||
		{ cat "$T/$n.out"; fail "$n: the replay failed"; }
	[ -s "$prof" ] || fail "$n: no profile written"
	tmpdirs "$T/$n.st" >"$T/$n.dirs"
	[ -s "$T/$n.dirs" ] || { cat "$T/$n.st" | tail -20; fail "$n: no results' file seen opened"; }
}

# profile outside the root: beside the profile
run outside "$T/r1" "$T/out/p.prof"
grep -qx "$T/out" "$T/outside.dirs" || { cat "$T/outside.dirs"; fail "the results' file is not beside the profile"; }

# profile under the root: not there
run under "$T/r2" "$T/r2/p.prof"
if grep -q "^$T/r2" "$T/under.dirs"; then
	cat "$T/under.dirs"; fail "the results' file went under --root (the profile's directory)"
fi

# profile and TMPDIR under the root: /tmp (or, where that fails, a message saying so)
mkdir -p "$T/r3/tmp"
TMPDIR=$T/r3/tmp strace -f -qq -e trace=open,openat -o "$T/both.st" \
	"$IOTAPE" replay "$T/t.iotape" --root "$T/r3" --force -o "$T/r3/p.prof" >"$T/both.out" 2>&1
rc=$?
tmpdirs "$T/both.st" >"$T/both.dirs"
if grep -q "^$T/r3" "$T/both.dirs"; then
	cat "$T/both.dirs"; fail "the results' file went under --root (TMPDIR)"
fi
[ $rc -eq 0 ] || { cat "$T/both.out"; fail "the replay failed with TMPDIR under the root"; }
grep -qx /tmp "$T/both.dirs" || { cat "$T/both.dirs"; fail "the results' file is not in /tmp"; }
exit 0
