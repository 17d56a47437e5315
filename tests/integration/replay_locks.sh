#!/bin/bash
# Locks: flock() and fcntl()'s record locks (F_SETLK, F_SETLKW, F_GETLK
# and the F_OFD_ ones) are recorded with what they lock (the struct
# flock's type, whence, start and length) by every backend alike, and
# replayed as locks: two processes of tests/progs/lock_procs.c in each
# other's way get the answers they got (a lock refused, a lock waited
# for and taken after the other's unlock), and sqlite3's locks of its
# database replay with it.  Before, flock() was not recorded at all and
# every fcntl() lock was left out of the replay as "unsupported".
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd record
need_iotape_cmd replay
need_cmd sqlite3
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT

# locks FILE: its lock calls as dump prints them, without thread, time
# and duration, sorted (two processes' calls interleave as they ran)
locks() {
	"$IOTAPE" dump "$1" | grep -E ' (fcntl\([0-9]+, F_(OFD_)?(GET|SET)LKW?,|flock\()' |
		sed -E 's/^ *[0-9]+ +[0-9.]+ //; s/ <[0-9.]+>.*//' | sort
}

# unreplayed FILE: a profile's lock calls that were not replayed
unreplayed() {
	"$IOTAPE" dump "$1" | grep -E ' (fcntl\([0-9]+, F_(OFD_)?(GET|SET)LKW?,|flock\()' |
		grep 'not replayed'
}

# start and end (s, from dump) of the first call matching ERE $2 in $1
when() {
	"$IOTAPE" dump "$1" | grep -E "$2" | head -1 |
		sed -E 's/^ *[0-9]+ +([0-9.]+) .* <([0-9.]+)>.*/\1 \2/'
}

# rec NAME OPTS... -- record lock_procs as NAME, check its trace
rec() {
	local name=$1
	shift
	mkdir -p "$T/w-$name"
	"$IOTAPE" record -q "$@" -o "$T/$name.iotape" -- "$PROGS/lock_procs" "$T/w-$name" ||
		fail "$name: record failed (or the program's locks answered wrong)"
	locks "$T/$name.iotape" >"$T/$name.locks"
	[ "$(wc -l <"$T/$name.locks")" = 15 ] ||
		fail "$name: the trace has $(wc -l <"$T/$name.locks") lock calls, not 15: $(cat "$T/$name.locks")"
	for want in \
		'fcntl\([0-9]+, F_GETLK, \{l_type=F_RDLCK, l_whence=SEEK_SET, l_start=0, l_len=10\}\) = 0$' \
		'fcntl\([0-9]+, F_SETLK, \{l_type=F_WRLCK, l_whence=SEEK_SET, l_start=0, l_len=10\}\) = -1 EAGAIN' \
		'fcntl\([0-9]+, F_SETLKW, \{l_type=F_WRLCK, l_whence=SEEK_SET, l_start=0, l_len=10\}\) = 0$' \
		'fcntl\([0-9]+, F_SETLK, \{l_type=F_UNLCK, l_whence=SEEK_SET, l_start=0, l_len=100\}\) = 0$' \
		'fcntl\([0-9]+, F_OFD_SETLK, \{l_type=F_WRLCK, l_whence=SEEK_SET, l_start=0, l_len=0\}\) = -1 EAGAIN' \
		'fcntl\([0-9]+, F_OFD_SETLKW, \{l_type=F_RDLCK, l_whence=SEEK_SET, l_start=0, l_len=0\}\) = 0$' \
		'flock\([0-9]+, LOCK_EX\|LOCK_NB\) = -1 EAGAIN' \
		'flock\([0-9]+, LOCK_SH\) = 0$' \
		'flock\([0-9]+, LOCK_UN\) = 0$'; do
		grep -Eq "$want" "$T/$name.locks" ||
			fail "$name: no lock call like /$want/ in the trace: $(cat "$T/$name.locks")"
	done
}

# rpl NAME - replay NAME.iotape: no mismatch, the same lock calls with
# the same answers, the child's wait ended after the parent's unlock
rpl() {
	local name=$1 u w
	mkdir "$T/root-$name"
	"$IOTAPE" replay "$T/$name.iotape" --root "$T/root-$name" -o "$T/$name.prof" \
		>"$T/$name.out" 2>&1 || fail "$name: replay failed: $(cat "$T/$name.out")"
	grep -Eq '^  mismatches +0' "$T/$name.out" ||
		fail "$name: the replay's results differ from the trace: $(cat "$T/$name.out")"
	unreplayed "$T/$name.prof" >&2 && fail "$name: lock calls left out of the replay"
	locks "$T/$name.prof" >"$T/$name.plocks"
	diff "$T/$name.locks" "$T/$name.plocks" >&2 ||
		fail "$name: the replay's lock calls or answers differ from the trace's"
	u=$(when "$T/$name.prof" 'F_SETLK, \{l_type=F_UNLCK, l_whence=SEEK_SET, l_start=0, l_len=100\}')
	w=$(when "$T/$name.prof" 'F_SETLKW, ')
	[ -n "$u" ] && [ -n "$w" ] || fail "$name: the profile lacks the unlock or the wait"
	awk -v u="${u% *}" -v w="$w" 'BEGIN { split(w, a, " "); exit !(a[1] + a[2] >= u) }' ||
		fail "$name: the child's F_SETLKW (start, duration: $w) ended before the parent's unlock (${u% *})"
}

rec fast
rec slow --no-fastpath
for name in fast slow; do
	rpl $name
done
diff "$T/fast.locks" "$T/slow.locks" >&2 ||
	fail "the fast path and ptrace record the locks differently"

# sqlite3 locks its database with F_SETLK around every transaction
mkdir -p "$T/w-sql"
"$IOTAPE" record -q --backend ptrace -o "$T/sql.iotape" -- sqlite3 "$T/w-sql/t.db" \
	'create table t(a); begin; insert into t values(1); commit; select count(*) from t;' \
	>/dev/null || fail "sqlite3: record failed"
locks "$T/sql.iotape" >"$T/sql.locks"
grep -Eq 'F_SETLK, \{l_type=F_WRLCK, l_whence=SEEK_SET, l_start=1073741824' "$T/sql.locks" ||
	fail "sqlite3: the trace lacks its write lock of the pending byte: $(cat "$T/sql.locks")"
rpl_sql() {
	mkdir "$T/root-sql"
	"$IOTAPE" replay "$T/sql.iotape" --root "$T/root-sql" -o "$T/sql.prof" >"$T/sql.out" 2>&1 ||
		fail "sqlite3: replay failed: $(cat "$T/sql.out")"
	grep -Eq '^  mismatches +0' "$T/sql.out" || fail "sqlite3: mismatches: $(cat "$T/sql.out")"
	unreplayed "$T/sql.prof" >&2 && fail "sqlite3: lock calls left out of the replay"
	locks "$T/sql.prof" | diff "$T/sql.locks" - >&2 ||
		fail "sqlite3: the replay's lock calls differ from the trace's"
}
rpl_sql

# two sqlite3 writers of one database, each waiting for the other's
# transactions (its busy handler: a refused F_SETLK, a sleep, again):
# the replay's locks give the recorded answers, the locks the recording
# refused refused, no more, no fewer.  (In about one recording in ten a
# writer's stat of the journal overlapped the other's create of it and
# found it there; the plan orders the create first since, and
# replay_overlap.sh holds such a recording: docs/RELIABILITY.md.)
awk 'BEGIN { print ".timeout 10000"; for (i = 0; i < 100; i++) {
	print "BEGIN IMMEDIATE;"; printf "INSERT INTO t VALUES(%d, hex(randomblob(300)));\n", i;
	print "COMMIT;" } }' >"$T/w-sql/w.sql"
cat >"$T/w-sql/two.sh" <<'EOS'
sqlite3 db 'CREATE TABLE t(a, b);'
sqlite3 db <w.sql &
sqlite3 db <w.sql &
wait
EOS
(cd "$T/w-sql" && rm -f db && "$IOTAPE" record -q --backend ptrace -o "$T/two.iotape" -- sh two.sh) ||
	fail "two writers: record failed"
mkdir "$T/root-two"
"$IOTAPE" replay "$T/two.iotape" --root "$T/root-two" -o "$T/two.prof" >"$T/two.out" 2>&1 ||
	fail "two writers: replay failed: $(cat "$T/two.out")"
unreplayed "$T/two.prof" >&2 && fail "two writers: lock calls left out of the replay"
locks "$T/two.iotape" | grep -q EAGAIN || fail "two writers: the recording refused no lock"
[ "$(locks "$T/two.iotape" | wc -l)" = "$(locks "$T/two.prof" | wc -l)" ] ||
	fail "two writers: the replay made $(locks "$T/two.prof" | wc -l) lock calls, the recording $(locks "$T/two.iotape" | wc -l)"
# Their answers: the same calls with the same answers, on this recording
# and on two committed ones (tests/data/README): two-writers.iotape (10
# locks refused), and late-lock.iotape, where a read lock returned after
# the other writer's write lock that it was in the way of, refused (a
# plan ordering the two by their ends granted that lock, 2 mismatches)
mkdir "$T/root-two-writers" "$T/root-late-lock"
for tw in two-writers late-lock; do
	"$IOTAPE" replay "$SRCDIR/tests/data/$tw.iotape" --root "$T/root-$tw" -o "$T/$tw.prof" \
		>"$T/$tw.out" 2>&1 || fail "$tw.iotape: replay failed: $(cat "$T/$tw.out")"
	grep -Eq '^  mismatches +0' "$T/$tw.out" || fail "$tw.iotape: mismatches: $(cat "$T/$tw.out")"
	locks "$SRCDIR/tests/data/$tw.iotape" >"$T/$tw.locks"
	locks "$T/$tw.prof" | diff "$T/$tw.locks" - >&2 ||
		fail "$tw.iotape: the replay's lock calls or answers differ from the trace's"
done

# the bpf backend records them as ptrace does
need_bpf
rec bpf --backend bpf
diff "$T/fast.locks" "$T/bpf.locks" >&2 ||
	fail "the bpf backend records the locks otherwise than ptrace"
rpl bpf
echo "ok: locks recorded alike by the fast path, ptrace and bpf, and replayed with their answers"
