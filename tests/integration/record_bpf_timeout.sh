#!/bin/bash
# The bpf backend records a wait's timeout as the time it held, as ptrace
# does, not the pointer to it: `sleep 0.05` (clock_nanosleep) and perl's
# select with 0.012 s (pselect6) give the same dump lines, times aside,
# under --backend bpf, ptrace with the fast path and --no-fastpath.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_cmd perl
d=$(mktemp -d /tmp/iotape-btmo.XXXXXX)
trap 'rm -rf "$d"' EXIT
cd "$d"
need_bpf

waits() {	# trace -> its waits, times aside
	"$IOTAPE" dump "$1" | grep -v '^#' | untimed | grep -E '^(clock_nanosleep|nanosleep|pselect6)\('
}
for w in sleep select; do
	case $w in
	sleep) cmd=(sleep 0.05) want='{tv_sec=0, tv_nsec=50000000}' ;;
	select) cmd=(perl -e 'select(undef, undef, undef, 0.012)') want='{tv_sec=0, tv_nsec=12000000}' ;;
	esac
	for b in bpf ptrace slow; do
		args=(--backend "$b")
		[ $b = slow ] && args=(--backend ptrace --no-fastpath)
		"$IOTAPE" record -q "${args[@]}" -o "$w.$b.iotape" -- "${cmd[@]}" 2>"$w.$b.err" ||
			fail "$w: record ${args[*]} failed: $(cat "$w.$b.err")"
		waits "$w.$b.iotape" >"$w.$b.waits"
	done
	grep -qF "$want" "$w.ptrace.waits" || fail "$w: ptrace: no $want in: $(cat "$w.ptrace.waits")"
	diff -u "$w.ptrace.waits" "$w.bpf.waits" || fail "$w: the bpf backend records other timeouts than ptrace"
	diff -u "$w.ptrace.waits" "$w.slow.waits" || fail "$w: --no-fastpath records other timeouts"
done
echo ok
