#!/bin/bash
# replay_umask.sh - each replayed process makes its files with the mask
# its recorded process had.  A shell, started with umask 022, makes a file
# and a directory, sets umask 077 and makes two more, then a subshell (a
# forked process) sets umask 0 and makes two, and the shell one more:
# modes 644 755, 600 700, 666 777, 600 (dash makes each `umask` three
# calls: it reads the mask with umask(0) and sets it back first).  Recorded with ptrace (with the
# fast path and without) and with bpf where it loads, and replayed under
# --root from a replayer whose own umask is 0 and then 077: the same
# modes, no mismatch (the umask calls return the masks recorded), the
# summary saying the masks were followed.  IOTAPE_REPLAY_UMASK=0 takes the
# replayer's mask for every process, as the replay did before.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
tmp_dir /tmp/iotape-umask
cd "$T"
record_backends "$T"

NAMES="first d0 a d b e c"
WANT="644 755 600 700 666 777 600"
# shellcheck disable=SC2016
PROG='cd "$1" && : >first && mkdir d0 && umask 077 && : >a && mkdir d &&
(umask 0; : >b; mkdir e) && : >c'

# modes DIR - the modes of $NAMES in DIR, on one line
modes() {
	local n out=
	for n in $NAMES; do
		out="$out $(stat -c %a "$1/$n" 2>/dev/null || echo none)"
	done
	echo "${out# }"
}

# replay MASK [ENV...]: a replay run with umask MASK, --verify, into
# $T/out; its exit status in $RC
replay() {
	local mask=$1
	shift
	rm -rf "$T/root"
	mkdir "$T/root"
	RC=0
	(umask "$mask" && env "$@" "$IOTAPE" replay "$T/t.iotape" --root "$T/root" --timing afap \
		--verify -o "$T/p.iotape") >"$T/out" 2>&1 || RC=$?
}

for b in "${BACKENDS[@]}"; do
	rm -rf "$T/w"
	mkdir "$T/w"
	backend_opts "$b"
	rc=0
	(umask 022 && "$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- sh -c "$PROG" sh "$T/w") \
		</dev/null || rc=$?
	[ $rc = 0 ] || fail "$b: recording the shell failed (exit $rc)"
	got=$(modes "$T/w")
	[ "$got" = "$WANT" ] || fail "$b: the recorded run made modes $got, not $WANT"
	"$IOTAPE" dump "$T/t.iotape" >"$T/dump" || fail "$b: dump failed"
	grep -Eq '^# record\.umask +0022$' "$T/dump" || fail "$b: the header has no record.umask 0022"
	# dash reads the mask (umask(0)) and sets it back before each
	# `umask` builtin sets its own: 6 calls, each returning the mask before
	n=$(grep -c 'umask(' "$T/dump") || true
	[ "$n" = 6 ] || fail "$b: $n umask calls recorded, not 6"
	grep -q 'umask(077) = 022' "$T/dump" || fail "$b: no umask(077) returning 022 recorded"

	for mask in 0 077; do
		replay $mask
		[ $RC = 0 ] || { cat "$T/out"; fail "$b, umask $mask: replay --verify exited $RC"; }
		grep -Eq '^  mismatches   0$' "$T/out" || { cat "$T/out"; fail "$b, umask $mask: mismatches"; }
		grep -q '^  umask        0022 for the first process (recorded), 6 umask calls' "$T/out" ||
			{ cat "$T/out"; fail "$b, umask $mask: the summary does not say the masks were followed"; }
		got=$(modes "$T/root$T/w")
		[ "$got" = "$WANT" ] ||
			fail "$b: replayed with umask $mask, the modes are $got, not $WANT as recorded"
	done

	# the replayer's own mask for every process, as before
	replay 0 IOTAPE_REPLAY_UMASK=0
	[ $RC = 0 ] || { cat "$T/out"; fail "$b: IOTAPE_REPLAY_UMASK=0: replay exited $RC"; }
	! grep -q '^  umask ' "$T/out" || fail "$b: IOTAPE_REPLAY_UMASK=0 still followed the masks"
	got=$(modes "$T/root$T/w")
	[ "$got" = "666 777 666 777 666 777 666" ] ||
		fail "$b: IOTAPE_REPLAY_UMASK=0 under umask 0 made modes $got, not the replayer's"
	echo "$b: ok ($WANT)"
done
echo "ok: each replayed process made its files with its recorded mask"
