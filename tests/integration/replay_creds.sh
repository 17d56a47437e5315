#!/bin/bash
# replay_creds.sh - a replayed thread makes its file calls as the user its
# recorded thread was.  tests/progs/cred_drop, run as root, makes w/priv
# (0700) with a file in it and w/pub (0777), then drops to nobody's uid
# and gid with no groups (setgroups, setresgid, setresuid: each thread
# makes the raw calls); then its main thread and a thread started before
# the drop each stat w/priv/secret (EACCES) and make a file in w/pub.
# Recorded with ptrace (with the fast path and without) and with bpf where
# it loads, replayed as root under --root: no mismatch (as root the stats
# succeeded: two mismatches, which IOTAPE_REPLAY_CREDS=0 shows still), the
# files made in pub owned by nobody's uid and gid, the summary counting
# the threads and the set*id calls.  A --root that others cannot search
# (0700): replayed as root, said in the summary, its mode left alone.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_root
need_ptrace
[ -x "$PROGS/cred_drop" ] || fail "$PROGS/cred_drop is not built (make tests)"
NU=$(id -u nobody 2>/dev/null) || skip "no user nobody"
NG=$(id -g nobody)
tmp_dir /tmp/iotape-creds
# the recorded program, as nobody, must reach w/pub
chmod 755 "$T"
cd "$T"
record_backends "$T"

# replay WHAT [ENV...]: --verify into $T/out, its exit status in $RC
replay() {
	local what=$1
	shift
	rm -rf "$T/root"
	mkdir "$T/root"
	RC=0
	env "$@" "$IOTAPE" replay "$T/t.iotape" --root "$T/root" --timing afap --verify \
		-o "$T/p.iotape" >"$T/out" 2>&1 || RC=$?
}

for b in "${BACKENDS[@]}"; do
	rm -rf "$T/w"
	mkdir "$T/w"
	backend_opts "$b"
	rc=0
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- "$PROGS/cred_drop" "$T/w" "$NU" "$NG" \
		</dev/null || rc=$?
	[ $rc = 0 ] || fail "$b: recording cred_drop failed (exit $rc)"
	n=$("$IOTAPE" dump "$T/t.iotape" | grep -c 'setresuid(.*) = 0') || true
	[ "$n" = 2 ] || fail "$b: $n setresuid calls recorded, not 2 (one a thread)"
	n=$("$IOTAPE" dump "$T/t.iotape" | grep -c 'priv/secret".*EACCES') || true
	[ "$n" = 2 ] || fail "$b: $n stats of priv/secret recorded EACCES, not 2"

	replay "$b"
	[ $RC = 0 ] || { cat "$T/out"; fail "$b: replay --verify exited $RC"; }
	grep -Eq '^  mismatches   0$' "$T/out" || { cat "$T/out"; fail "$b: mismatches"; }
	grep -Eq '^  credentials  2 threads made their file calls as the user recorded, 6 set\*id' \
		"$T/out" || { cat "$T/out"; fail "$b: the summary does not count 2 threads, 6 calls"; }
	for f in main thread; do
		o=$(stat -c %u:%g "$T/root$T/w/pub/$f" 2>/dev/null) || fail "$b: pub/$f not made"
		[ "$o" = "$NU:$NG" ] || fail "$b: pub/$f is owned by $o, not $NU:$NG"
	done
	[ "$(stat -c %u "$T/root$T/w/priv/secret")" = 0 ] || fail "$b: priv/secret not root's"

	# as the replay was before: as root, the two stats succeed
	replay "$b" IOTAPE_REPLAY_CREDS=0
	grep -Eq '^  mismatches   2 \(newfstatat 2 of' "$T/out" ||
		{ cat "$T/out"; fail "$b: IOTAPE_REPLAY_CREDS=0 did not replay as root"; }
	[ "$(stat -c %u "$T/root$T/w/pub/main")" = 0 ] || fail "$b: IOTAPE_REPLAY_CREDS=0: pub/main not root's"
	echo "$b: ok"
done

# kept capabilities (PR_SET_KEEPCAPS, capset, as setpriv): the main
# thread's stat succeeds, its file is still nobody's; the other thread's
# stat fails.  bpf where it loads, else ptrace.
b=${BACKENDS[${#BACKENDS[@]}-1]}
rm -rf "$T/w"
mkdir "$T/w"
backend_opts "$b"
rc=0
"$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- "$PROGS/cred_drop" "$T/w" "$NU" "$NG" caps \
	</dev/null || rc=$?
[ $rc = 0 ] || fail "$b caps: recording cred_drop failed (exit $rc)"
n=$("$IOTAPE" dump "$T/t.iotape" | grep -c 'priv/secret".*EACCES') || true
[ "$n" = 1 ] || fail "$b caps: $n stats of priv/secret recorded EACCES, not 1"
replay "$b caps"
[ $RC = 0 ] || { cat "$T/out"; fail "$b caps: replay --verify exited $RC"; }
grep -Eq '^  mismatches   0$' "$T/out" || { cat "$T/out"; fail "$b caps: mismatches"; }
for f in main thread; do
	o=$(stat -c %u:%g "$T/root$T/w/pub/$f" 2>/dev/null) || fail "$b caps: pub/$f not made"
	[ "$o" = "$NU:$NG" ] || fail "$b caps: pub/$f is owned by $o, not $NU:$NG"
done
echo "$b caps: ok"

# a root that others cannot search: as root, counted, its mode kept
rm -rf "$T/root"
mkdir -m 0700 "$T/root"
RC=0
"$IOTAPE" replay "$T/t.iotape" --root "$T/root" --timing afap -o "$T/p.iotape" >"$T/out" 2>&1 || RC=$?
[ $RC = 0 ] || { cat "$T/out"; fail "0700 root: replay exited $RC"; }
grep -q '^  credentials  not taken: 2 threads .* --root is not searchable by others' "$T/out" ||
	{ cat "$T/out"; fail "0700 root: the summary does not say the credentials were not taken"; }
[ "$(stat -c %a "$T/root")" = 700 ] || fail "0700 root: its mode was changed"
[ "$(stat -c %u "$T/root$T/w/pub/main")" = 0 ] || fail "0700 root: pub/main not made as root"
echo "ok: replayed threads make their file calls as the user recorded (set*id followed per thread)"
