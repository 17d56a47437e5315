#!/bin/bash
# replay_map_exit_thread.sh - a Python process reads a file through a
# mapping in its main thread, then another thread ends the process
# (os._exit: exit_group from a thread other than the leader, as a JVM
# ends).  The bpf backends take a process's pages once it is gone, and
# ptrace at its leader's exit, and tie them to whatever event the trace
# holds next, another process's or none of this thread's: the replay left
# them out (3 of 4 records here with ptrace; 76 of 222 records of a
# jlink run, 256 of 380 of a go build recorded by bpf "not replayed").  Such pages are
# tied to the last exec or exit of their process before that event now
# (mpages.c rpl_mpages_tie()): every record is replayed.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_python
record_tmp mapexit
head -c 262144 /dev/urandom >"$T/data"
cat >"$T/prog.py" <<'S'
import mmap, os, sys, threading, time
with open(sys.argv[1], "rb") as f:
    m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
s = sum(m[i] for i in range(0, len(m), 4096))
threading.Thread(target=lambda: os._exit(0)).start()
time.sleep(10)
S

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/root"
	mkdir -p "$T/root"
	"$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- "$PY" "$T/prog.py" "$T/data" \
		>/dev/null 2>"$T/err" || fail "$b: recording failed: $(cat "$T/err")"
	"$IOTAPE" dump "$T/t.iotape" | grep -q "mmap pages \"$T/data\"" ||
		skip "$b: the trace has no pages of the mapped file"
	replay_clean "$b" "$T/t.iotape" "$T/root" "$T/out" --timing afap
	line=$(grep '^  mapped pages' "$T/out") || fail "$b: no mapped pages line"
	case $line in
	*"; 0 not replayed"*) ;;
	*) fail "$b: records left out: $line" ;;
	esac
	echo "$b: ${line#  mapped pages }"
done
echo "ok: pages of a process another thread ended are replayed"
