#!/bin/bash
# replay_fifo_writers.sh - four shells open a FIFO for writing (bash's
# `exec 8>fifo`: O_WRONLY|O_CREAT|O_TRUNC) just before its reader, `cat`,
# opens it.  Each writer's open waits for a reader: recorded, they enter
# before the reader's open and end after it.  The plan took such an open
# for one that made the name (O_CREAT), and ordered the reader's open,
# which found the FIFO, after it; the writers' opens then gave up waiting
# after a second each and opened the FIFO read-write, and the reader came
# only then (a replay of 1.01 s for a 10 ms run, with 0 mismatches).  A
# FIFO's open makes no name, whatever its flags: in the replay every
# writer's open must end after the reader's open began, none opened
# read-write.  And where the reader's open came first and its read took
# all 60 bytes at once, the replay's read, which waits for the rest of
# its bytes, met end of file between two writers (no writer had the FIFO
# open) and returned 45: a FIFO's reader waits on for its next writer.
# Recorded with ptrace and bpf where it loads, each replayed twice.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd replay
command -v bash >/dev/null || fail "bash is not installed"
record_tmp fifowriters
backends=ptrace
! bpf_loads "$T" || backends="ptrace bpf"
cat >"$T/cmd.sh" <<'SH'
rm -f m; mkfifo m
cat m >multi.txt &
for i in 1 2 3 4; do (exec 8>m; for j in 1 2 3; do echo "w$i $j" >&8; done) & done
wait
SH
for b in $backends; do
	mkdir -p "$T/$b/w"
	(cd "$T/$b/w" && "$IOTAPE" record -q --backend "$b" -o "$T/$b/t.iotape" -- bash "$T/cmd.sh") ||
		fail "$b: record failed"
	[ "$(wc -l <"$T/$b/w/multi.txt")" = 12 ] || fail "$b: the workload's reader got $(wc -l <"$T/$b/w/multi.txt") lines, not 12"
	rm -rf "$T/$b/w"
	for i in 1 2; do
		rm -rf "$T/$b/r" && mkdir "$T/$b/r"
		replay_clean "$b, round $i" "$T/$b/t.iotape" "$T/$b/r" "$T/$b/out" \
			--timing afap -o "$T/$b/p.iotape"
		! grep -q "FIFO opens for writing whose reader did not come" "$T/$b/out" ||
			{ cat "$T/$b/out"; fail "$b: replay $i: writers' opens gave up waiting for the reader"; }
		# the reader's open's start, and each writer's open's end
		"$IOTAPE" dump "$T/$b/p.iotape" | awk -v b="$b" -v i="$i" '
			/openat\(.*\/m", O_RDONLY/ { rs = $2 }
			/openat\(.*\/m", O_WRONLY/ {
				d = $0; sub(/.*</, "", d); sub(/>.*/, "", d)
				we[++n] = $2 + d
			}
			END {
				if (rs == "" || n != 4) { printf "%s: replay %d: %d writers, reader %s\n", b, i, n, rs; exit 1 }
				for (k = 1; k <= n; k++)
					if (we[k] < rs) { printf "%s: replay %d: a writer ended at %.6f, before the reader began at %.6f\n", b, i, we[k], rs; exit 1 }
			}' || fail "$b: replay $i: the reader's open was held back behind a writer's"
	done
done
echo "ok: FIFO writers' opens met their reader's open ($backends)"
