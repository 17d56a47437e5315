#!/bin/bash
# An io_uring_enter that waits while the program has left completions in
# its ring unreaped (tests/progs/uring_left: three NOPs done and not
# reaped, then four NOPs with min_complete 5): the kernel counted the
# three, so the call waited for two.  The recorder writes how many were
# left (dump: "ready ... 3 completions"), alike with and without the fast
# path; the replay, which reaps every completion as it comes, asks its
# io_uring_enter for the two only (strace), not for four.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_cmd strace
[ -x "$PROGS/uring_left" ] || fail "$PROGS/uring_left is not built (make tests)"
d=$(mktemp -d /tmp/iotape-uleft.XXXXXX)
trap 'rm -rf "$d"' EXIT
cd "$d"
"$PROGS/uring_left" >/dev/null 2>&1
case $? in
0) ;;
2) skip "io_uring is not available here (kernel.io_uring_disabled?)" ;;
*) fail "uring_left: native run failed" ;;
esac

for m in fast slow; do
	args=()
	[ $m = slow ] && args=(--no-fastpath)
	"$IOTAPE" record -q "${args[@]}" -o "$m.iotape" -- "$PROGS/uring_left" >/dev/null 2>"$m.err" ||
		fail "record ($m) of uring_left failed: $(cat "$m.err")"
	n=$("$IOTAPE" dump "$m.iotape" | grep -c 'io_uring ready ctx=.*: 3 completions in the ring')
	[ "$n" = 1 ] || fail "record ($m): $n records of 3 completions left, want 1: $("$IOTAPE" dump "$m.iotape" | grep io_uring)"
done

mkdir root
strace -f -e trace=io_uring_enter -o replay.strace \
	"$IOTAPE" replay --verify fast.iotape --root "$d/root" >replay.out 2>&1 ||
	fail "replay exited $?: $(cat replay.out)"
grep -Eq '^  mismatches +0$' replay.out || fail "replay: $(cat replay.out)"
grep -Eq 'io_uring_enter\([0-9]+, 3, 3, IORING_ENTER_GETEVENTS' replay.strace ||
	fail "the replay's first enter is not for 3 and 3: $(grep io_uring_enter replay.strace)"
grep -Eq 'io_uring_enter\([0-9]+, 4, 2, IORING_ENTER_GETEVENTS' replay.strace ||
	fail "the replay's second enter does not wait for the 2 the recorded one waited for: $(grep io_uring_enter replay.strace)"
echo ok
