#!/bin/bash
# A file with no name (memfd_create, tests/progs/memfd_io) is recorded
# and replayed, where its reads and writes used to be recorded on a
# descriptor the trace never saw opened and skipped by the replay
# ("descriptor not replayed"): the trace holds memfd_create and the
# write, pread and ftruncate on its descriptor, alike with and without
# the fast path; `iotape report` counts the bytes in its read and write
# classes; a replay with --verify replays them all on an anonymous file
# of its own, with no mismatch, nothing skipped for its descriptor and
# no file made under the root.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
[ -x "$PROGS/memfd_io" ] || fail "$PROGS/memfd_io is not built (make tests)"
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT

# the calls on the memfd, from its creation on, without pid, time, duration
calls() {
	"$IOTAPE" dump "$1" | grep -v '^#' | untimed |
		awk '/^memfd_create\(/ { on = 1; fd = $NF } on && (/^memfd_create/ || index($0, "(" fd ","))'
}
for m in fast slow; do
	args=()
	[ $m = slow ] && args=(--no-fastpath)
	"$IOTAPE" record -q "${args[@]}" -o "$T/$m.iotape" -- "$PROGS/memfd_io" ||
		fail "memfd_io: record ($m) failed"
	calls "$T/$m.iotape" >"$T/$m.calls"
done
for want in '^memfd_create\("memfd_io", ' '^write\([0-9]+, \.\.\., 8192\) = 8192$' \
	'^pread64\([0-9]+, \.\.\., 4096, 0\) = 4096$' '^ftruncate\([0-9]+, 16384\) = 0$'; do
	grep -Eq "$want" "$T/fast.calls" || fail "memfd_io: no '$want' in the trace: $(cat "$T/fast.calls")"
done
diff -u "$T/fast.calls" "$T/slow.calls" || fail "memfd_io: the fast path and --no-fastpath record different calls"
"$IOTAPE" report "$T/fast.iotape" | grep -Eq '^  write +[0-9]+ .* 8\.0 KiB$' ||
	fail "memfd_io: report does not count the 8 KiB written: $("$IOTAPE" report "$T/fast.iotape")"
for m in fast slow; do
	rm -rf "$T/root" && mkdir "$T/root"
	"$IOTAPE" replay --verify "$T/$m.iotape" --root "$T/root" >"$T/$m.out" 2>&1 ||
		fail "memfd_io ($m): replay --verify exited $?: $(cat "$T/$m.out")"
	grep -q 'descriptor not replayed\|unsupported' "$T/$m.out" &&
		fail "memfd_io ($m): calls skipped: $(cat "$T/$m.out")"
	grep -Eq '^  mismatches +0$' "$T/$m.out" || fail "memfd_io ($m): $(cat "$T/$m.out")"
done
# no file under the root but the starting tree
mkdir "$T/tree"
"$IOTAPE" replay -q --prepare-only "$T/slow.iotape" --root "$T/tree" || fail "memfd_io: --prepare-only failed"
diff <(cd "$T/tree" && find . -printf '%p %s\n' | sort) <(cd "$T/root" && find . -printf '%p %s\n' | sort) ||
	fail "memfd_io: the replay made files under the root besides the starting tree"
echo ok
