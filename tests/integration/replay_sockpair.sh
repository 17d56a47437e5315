#!/bin/bash
# Replay of processes that talk through a socketpair() (a local rsync's
# sender, generator and receiver do): the pair's two descriptors must be
# recorded, with the fast path and without, and replayed as a real pair,
# each read after the write on the other end that fed it.  Replayed, no
# call on the pair is left out as a descriptor of unknown origin, every
# byte moves as recorded (no mismatch), and no wait for the other end is
# given up.  Then a local `rsync -a` of a small tree, the same way.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT

# replay_ok NAME - replay $T/NAME.iotape: no mismatch, no call on an
# unknown descriptor, no pipe wait given up
replay_ok() {
	local name=$1
	mkdir "$T/root-$name"
	"$IOTAPE" replay "$T/$name.iotape" --root "$T/root-$name" --timing afap \
		>"$T/$name.out" 2>&1 || fail "$name: replay failed: $(cat "$T/$name.out")"
	cat "$T/$name.out"
	grep -Eq '^  mismatches +0' "$T/$name.out" || fail "$name: the replay's results differ from the trace"
	grep -q 'descriptor not replayed' "$T/$name.out" &&
		fail "$name: calls on descriptors the replay does not know"
	grep -q 'waits given up' "$T/$name.out" &&
		fail "$name: a read or write waited for its other end in vain"
	return 0
}

for mode in fast slow; do
	opt=
	[ $mode = slow ] && opt=--no-fastpath
	for type in stream seqpacket; do
		name=$mode-$type
		# 6 rounds of 96 KiB: more than a socket's buffer holds at once
		"$IOTAPE" record -q $opt -o "$T/$name.iotape" -- "$PROGS/rpl_sockpair" 96 6 $type ||
			fail "$name: record failed (or the program saw its data wrong)"
		"$IOTAPE" dump "$T/$name.iotape" >"$T/$name.dump" || fail "$name: dump failed"
		grep -Eq 'socketpair\(1, .*, 0, \[[0-9]+, [0-9]+\]\) = 0' "$T/$name.dump" ||
			fail "$name: the trace lacks the socketpair and its descriptors: $(grep socketpair "$T/$name.dump")"
		[ "$(grep -c 'read(.*, ..., 7000) = ' "$T/$name.dump")" -ge 10 ] ||
			fail "$name: the trace lacks the child's reads of the pair"
		replay_ok "$name"
	done
done

need_cmd rsync
mkdir -p "$T/w"
mk_tree "$T/w/src" 30
"$IOTAPE" record -q -o "$T/rsync.iotape" -- rsync -aH "$T/w/src/" "$T/w/copy/" ||
	fail "rsync: record failed"
diff <(listing "$T/w/src") <(listing "$T/w/copy") >/dev/null ||
	fail "rsync: the recorded copy differs from its source"
"$IOTAPE" dump "$T/rsync.iotape" | grep -q 'socketpair(' ||
	fail "rsync: the trace lacks rsync's socketpair"
mkdir "$T/root-rsync"
"$IOTAPE" replay "$T/rsync.iotape" --root "$T/root-rsync" --timing afap -o "$T/rsync.prof" \
	>"$T/rsync.out" 2>&1 || fail "rsync: replay failed: $(cat "$T/rsync.out")"
cat "$T/rsync.out"
grep -Eq '^  mismatches +0' "$T/rsync.out" || fail "rsync: the replay's results differ from the trace"
grep -q 'waits given up' "$T/rsync.out" && fail "rsync: a wait for the other end was given up"
"$IOTAPE" dump "$T/rsync.prof" >"$T/rsync.pdump" || fail "rsync: dump of the profile failed"
[ "$(grep -c 'socketpair(.*) = 0' "$T/rsync.pdump")" = 3 ] ||
	fail "rsync: the profile lacks the 3 socket pairs of a local rsync"
# Not replayed and of known origin: reads of /dev/urandom (not under the
# root; their open was not replayed either).  A read or write on any
# other descriptor the replay does not know is the fault this tests.
unknown=$(awk '
	$3 ~ /^open(at)?\(/ && /\[not replayed\]/ && match($0, /\) = [0-9]+ /) {
		skipped[$1 " " substr($0, RSTART + 4, RLENGTH - 5)] = 1 }
	$3 ~ /^close\(/ { fd = $3; sub(/^close\(/, "", fd); sub(/\).*/, "", fd)
		delete skipped[$1 " " fd] }
	$3 ~ /^(read|write|readv|writev)\(/ && /\[not replayed\]/ {
		fd = $3; sub(/^[a-z]+\(/, "", fd); sub(/,.*/, "", fd)
		if (!(($1 " " fd) in skipped)) print }
' "$T/rsync.pdump")
[ -z "$unknown" ] || fail "rsync: reads or writes on unknown descriptors not replayed: $(echo "$unknown" | head -5)"
echo ok
