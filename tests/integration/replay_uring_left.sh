#!/bin/bash
# An io_uring_enter that waits while the program has left completions in
# its ring unreaped (tests/progs/uring_left: three NOPs done and not
# reaped, then four NOPs with min_complete 5): the kernel counted the
# three, so the call waited for two.  The recorder writes how many were
# left (dump: "ready ... 3 completions"), alike with and without the fast
# path and under the bpf backend (where it loads: its programs read the
# ring's head and tail), also when the call names the ring by its
# registered index (uring_left registered); the replay, which reaps every completion as it
# comes, asks its io_uring_enter for the two only (strace), not for four,
# from the ptrace recording and from the bpf one.
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

modes="fast slow" replays=fast
if "$IOTAPE" record -q --backend bpf -o probe.iotape -- true 2>/dev/null; then
	modes="$modes bpf" replays="fast bpf"
else
	echo "the bpf backend does not load here: its case is left out"
fi
regs=$(for x in $modes; do echo $x.registered; done)
if ! "$PROGS/uring_left" registered >/dev/null 2>&1; then
	echo "IORING_REGISTER_RING_FDS does not work here: the registered cases are left out"
	regs=
fi
for m in $modes $regs; do
	args=() reg=
	case $m in slow*) args=(--no-fastpath) ;; bpf*) args=(--backend bpf) ;; esac
	case $m in *.registered) reg=registered ;; esac
	"$IOTAPE" record -q "${args[@]}" -o "$m.iotape" -- "$PROGS/uring_left" $reg >/dev/null 2>"$m.err" ||
		fail "record ($m) of uring_left failed: $(cat "$m.err")"
	n=$("$IOTAPE" dump "$m.iotape" | grep -c 'io_uring ready ctx=.*: 3 completions in the ring')
	[ "$n" = 1 ] || fail "record ($m): $n records of 3 completions left, want 1: $("$IOTAPE" dump "$m.iotape" | grep io_uring)"
done

for m in $replays; do
	rm -rf root && mkdir root
	strace -f -e trace=io_uring_enter -o replay.strace \
		"$IOTAPE" replay --verify $m.iotape --root "$d/root" >replay.out 2>&1 ||
		fail "replay of $m.iotape exited $?: $(cat replay.out)"
	grep -Eq '^  mismatches +0$' replay.out || fail "replay of $m.iotape: $(cat replay.out)"
	grep -Eq 'io_uring_enter\([0-9]+, 3, 3, IORING_ENTER_GETEVENTS' replay.strace ||
		fail "$m: the replay's first enter is not for 3 and 3: $(grep io_uring_enter replay.strace)"
	grep -Eq 'io_uring_enter\([0-9]+, 4, 2, IORING_ENTER_GETEVENTS' replay.strace ||
		fail "$m: the replay's second enter does not wait for the 2 the recorded one waited for: $(grep io_uring_enter replay.strace)"
done
echo ok
