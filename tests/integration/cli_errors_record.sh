#!/bin/bash
# cli_errors_record.sh - what 'iotape record' (and 'check --repair',
# 'dump --pid') say and leave behind when they cannot do what was asked:
# a process that is not there, a bad number, an unknown option, a full
# disk, a recording ended by a signal.  Every message is one line naming
# what went wrong; nothing that existed is destroyed and nothing empty is
# left.  The checks are independent: each failure is listed, then the
# test fails.  The full-disk checks need root and a tmpfs mount, the
# signal ones ptrace: without them the rest runs and the test skips.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_iotape_cmd record
need_iotape_cmd check
need_iotape_cmd dump
d=$(mktemp -d /tmp/iotape-clierr.XXXXXX)
mnt=$d/mnt
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
      mountpoint -q "$mnt" && umount "$mnt"; rm -rf "$d"' EXIT
cd "$d"
nbad=0
not_run=()
bad() { echo "FAIL: $*" >&2; nbad=$((nbad + 1)); }
ok() { echo "ok: $*"; }

# one_line WHAT PATTERN - err holds exactly one line, matching PATTERN
one_line() {
	if [ "$(wc -l <err)" != 1 ]; then
		bad "$1: want one line on stderr, got: $(cat err)"
	elif ! grep -Eq -- "$2" err; then
		bad "$1: the message does not say '$2': $(cat err)"
	else
		ok "$1"
	fi
}

# same_file FILE SUM WHAT - FILE is still there with the sha256 SUM
same_file() {
	if [ ! -e "$1" ]; then
		bad "$3: $1 was removed"
	elif [ "$(sha256sum <"$1")" != "$2" ]; then
		bad "$3: $1 was changed ($(stat -c %s "$1") bytes now)"
	else
		ok "$3: $1 left as it was"
	fi
}

# no_leftover WHAT - no file but the named ones in the current directory
no_leftover() {
	local extra
	extra=$(ls -A | grep -v -x -e err -e out -e k.iotape -e in.iotape -e mnt -e w)
	if [ -n "$extra" ]; then
		bad "$1: files left behind: $extra"
		rm -f $extra
	fi
}

cp "$DATA/many.iotape" k.iotape
ksum=$(sha256sum <k.iotape)
# a pid that cannot exist: past the kernel's largest
nopid=$(( $(cat /proc/sys/kernel/pid_max) + 1 ))

# 1. attaching to a process that is not there: exit 1, 'no such process',
# the existing trace untouched, no new file where there was none
rc=0; "$IOTAPE" record -q -o k.iotape -p "$nopid" 2>err || rc=$?
[ "$rc" = 1 ] || bad "record -p $nopid: exit $rc, want 1"
one_line "record -p $nopid: message" "^iotape: record: -p $nopid: no such process"
same_file k.iotape "$ksum" "record -p $nopid"
rc=0; "$IOTAPE" record -q -o new.iotape -p "$nopid" 2>err || rc=$?
if [ -e new.iotape ]; then
	bad "record -o new.iotape -p $nopid left new.iotape ($(stat -c %s new.iotape) bytes)"
	rm -f new.iotape
else
	ok "record -o new.iotape -p $nopid: no file made"
fi
no_leftover "record -p $nopid"

# 2. -p that is not a number
rc=0; "$IOTAPE" record -q -o x.iotape -p abc 2>err || rc=$?
[ "$rc" = 2 ] || bad "record -p abc: exit $rc, want 2"
one_line "record -p abc" "^iotape: record: -p abc: not a process id"
rm -f x.iotape

# 3. numeric options out of range or not numbers: exit 2 before anything
# runs, naming the option, the value and the range
for a in "--flush-ms abc" "--flush-ms -5" "--flush-ms 0" "--flush-events abc" \
	 "--flush-events -3" "--flush-events 99999999999"; do
	set -- $a
	rc=0; "$IOTAPE" record -q $a -o x.iotape -- touch ran 2>err || rc=$?
	[ "$rc" = 2 ] || bad "record $a: exit $rc, want 2"
	one_line "record $a" "^iotape: record: $1 $2: .* from 1 to [0-9]+$"
	[ -e ran ] && bad "record $a: the program ran"
	[ -e x.iotape ] && bad "record $a: x.iotape was made"
	rm -f ran x.iotape
done

# sizes of --data and --data-total: the same, with K, M, G named
for a in "--data=0" "--data=65M" "--data=1X" "--data-total=abc" "--data-total=0"; do
	rc=0; "$IOTAPE" record -q "$a" -o x.iotape -- touch ran 2>err || rc=$?
	[ "$rc" = 2 ] || bad "record $a: exit $rc, want 2"
	one_line "record $a" "^iotape: record: ${a%%=*}[= ]${a#*=}: give .*\\(K, M, G suffixes\\)$"
	[ -e ran ] && bad "record $a: the program ran"
	[ -e x.iotape ] && bad "record $a: x.iotape was made"
	rm -f ran x.iotape
done

# --data's value after a space is --data's when it is written as a size,
# checked as after '=' (getopt alone would take 65M for the command)
rc=0; "$IOTAPE" record -q --data 65M -o x.iotape -- touch ran 2>err || rc=$?
[ "$rc" = 2 ] || bad "record --data 65M: exit $rc, want 2"
one_line "record --data 65M" "^iotape: record: --data 65M: give .*\\(K, M, G suffixes\\)$"
[ -e ran ] && bad "record --data 65M: the program ran"
rm -f ran x.iotape
# ... and is kept (needs ptrace); a next word that is not a size is not
# --data's: the default is kept
if "$IOTAPE" record -q -o /dev/null -- true 2>/dev/null; then
	for a in "--data 4K:4096" "--data=4K:4096" "--data:1048576"; do
		rc=0; "$IOTAPE" record -q ${a%:*} -o x.iotape -- touch ran 2>err || rc=$?
		[ "$rc" = 0 ] || bad "record ${a%:*} -o x.iotape: exit $rc, want 0: $(cat err)"
		[ -e ran ] || bad "record ${a%:*} -o x.iotape: the program did not run"
		"$IOTAPE" dump x.iotape 2>/dev/null | grep -Eq "^# record\.data +max=${a#*:} " &&
			ok "record ${a%:*}: keeps writes of up to ${a#*:} bytes" ||
			bad "record ${a%:*}: the header says $("$IOTAPE" dump x.iotape 2>&1 | grep record.data)"
		rm -f ran x.iotape
	done
else
	not_run+=("record --data MAX with a space (ptrace is not permitted here)")
fi

# 4. an unknown option or a missing value: one line, not the whole help
for cmd in record dump check; do
	rc=0; "$IOTAPE" $cmd --bogus x 2>err || rc=$?
	[ "$rc" = 2 ] || bad "$cmd --bogus: exit $rc, want 2"
	one_line "$cmd --bogus" "^iotape: $cmd: unknown option '--bogus'; 'iotape $cmd --help' lists them$"
done
rc=0; "$IOTAPE" record -o x.iotape --flush-ms 2>err || rc=$?
[ "$rc" = 2 ] || bad "record --flush-ms (no value): exit $rc, want 2"
one_line "record --flush-ms (no value)" "^iotape: record: --flush-ms needs a value"
no_leftover "bad options"

# 5. check --repair -o into a directory that does not exist: the message
# names the output, not the input that was read
cp "$DATA/unclosed.iotape" in.iotape
rc=0; "$IOTAPE" check --repair -o "$d/nodir/x.iotape" in.iotape >/dev/null 2>err || rc=$?
[ "$rc" = 1 ] || bad "check --repair -o nodir/x: exit $rc, want 1"
one_line "check --repair -o nodir/x" "^iotape: check: $d/nodir/x.iotape: .*No such file or directory"

# 6. dump --pid of a process the trace does not have: exit 1 and the pids
# it has (basic.iotape: processes 100, 101 and 103; 102 is a thread)
rc=0; "$IOTAPE" dump -p 1 "$DATA/basic.iotape" >out 2>err || rc=$?
[ "$rc" = 1 ] || bad "dump -p 1: exit $rc, want 1"
one_line "dump -p 1" "no process or thread 1 in the trace; its processes are 100, 101, 103"

# 7. how a recording ended, after the summary (needs ptrace)
if "$IOTAPE" record -q -o /dev/null -- true 2>/dev/null; then
	rc=0; timeout 30 "$IOTAPE" record -o s.iotape -- sh -c 'kill -9 $$' 2>err || rc=$?
	[ "$rc" = 137 ] || bad "program killed: exit $rc, want 137"
	grep -q '^iotape: record: the program was killed by SIGKILL after [0-9.]* s; the trace holds every event up to then$' err &&
		ok "program killed: the summary says so" ||
		bad "program killed: no line saying so: $(cat err)"
	# as a terminal's Ctrl-C: SIGINT to the recorder's process group
	setsid env --default-signal=INT "$IOTAPE" record -o i.iotape -- sleep 30 2>err &
	rp=$!; pids+=("$rp")
	# once the program runs (a loaded machine can take over a second
	# to get there), as a user who saw it start
	for _ in $(seq 300); do
		pgrep -P "$rp" -x sleep >/dev/null && break
		sleep 0.1
	done
	kill -INT -- -"$rp"
	rc=0; wait "$rp" || rc=$?
	[ "$rc" = 130 ] || bad "Ctrl-C: exit $rc, want 130"
	grep -q '^iotape: record: recording interrupted by SIGINT after [0-9.]* s; the program was killed by it and the trace holds every event up to then$' err &&
		ok "Ctrl-C: the summary says so" ||
		bad "Ctrl-C: no line saying so: $(cat err)"
	rm -f s.iotape i.iotape
	# Ctrl-C while the recorder gets ready (BPF programs loading, stops
	# calibrated: tens of ms), at 20 moments from its start on: each
	# ends saying so with 130 and no file, or records (or, killed before
	# its main() ran, leaves nothing); never a half-made trace file left
	# in the directory
	mkdir early
	early_bad=0
	for i in $(seq 0 19); do
		setsid env --default-signal=INT "$IOTAPE" record -o early/e.iotape -- true 2>err &
		rp=$!; pids+=("$rp")
		sleep "0.00$((i / 2))$((i % 2 * 5))"
		kill -INT -- -"$rp" 2>/dev/null
		rc=0; wait "$rp" || rc=$?
		if grep -q '^iotape: record: interrupted by SIGINT before the program started; nothing recorded, no trace written$' err; then
			[ "$rc" = 130 ] || { bad "Ctrl-C at start-up ($i): exit $rc, want 130"; early_bad=1; }
			[ -z "$(ls -A early)" ] || { bad "Ctrl-C at start-up ($i): left $(ls -A early)"; early_bad=1; }
		elif [ "$rc" = 130 ] && [ ! -s err ] && [ -z "$(ls -A early)" ]; then
			:	# killed before it had made anything
		elif [ -s early/e.iotape ] && "$IOTAPE" check -q early/e.iotape 2>/dev/null &&
			[ "$(ls -A early)" = e.iotape ] && { [ "$rc" = 0 ] || [ "$rc" = 130 ]; }; then
			:
		else
			bad "Ctrl-C at start-up ($i): exit $rc, files '$(ls -A early)', stderr: $(cat err)"
			early_bad=1
		fi
		rm -f early/* early/.[!.]*
	done
	rmdir early
	[ $early_bad = 1 ] || ok "Ctrl-C at start-up: 20 moments, each said or recorded"
else
	not_run+=("the signal checks (ptrace is not permitted here)")
fi

# 8. a full disk: a 64 KiB tmpfs
if [ "$(id -u)" != 0 ]; then
	not_run+=("the full-disk checks (they need root to mount a tmpfs)")
elif ! { mkdir -p "$mnt" && mount -t tmpfs -o size=64k none "$mnt"; } 2>/dev/null; then
	not_run+=("the full-disk checks (mount -t tmpfs failed)")
else
	cp "$DATA/many.iotape" "$mnt/old.iotape"
	osum=$(sha256sum <"$mnt/old.iotape")
	head -c 4000 "$DATA/many.iotape" >"$mnt/cut.iotape"
	dd if=/dev/zero of="$mnt/fill" bs=1k 2>/dev/null
	# the header cannot be written: no trace left, an older one kept
	rc=0; "$IOTAPE" record -q -o "$mnt/t.iotape" -- touch ran 2>err || rc=$?
	[ "$rc" = 1 ] || bad "full disk, new trace: exit $rc, want 1"
	[ -e ran ] && bad "full disk, new trace: the program ran"
	[ -e "$mnt/t.iotape" ] && bad "full disk: a $(stat -c %s "$mnt/t.iotape")-byte t.iotape is left" ||
		ok "full disk, new trace: nothing left"
	rc=0; "$IOTAPE" record -q -o "$mnt/old.iotape" -- touch ran 2>err || rc=$?
	[ "$rc" = 1 ] || bad "full disk, existing trace: exit $rc, want 1"
	same_file "$mnt/old.iotape" "$osum" "full disk, existing trace"
	ls "$mnt" | grep -q '\.record\.' &&
		bad "full disk, existing trace: a temporary file is left: $(ls "$mnt")"
	# check --repair in place needs room for a copy: it says so, and -o
	rc=0; "$IOTAPE" check --repair "$mnt/cut.iotape" >/dev/null 2>err || rc=$?
	[ "$rc" = 1 ] || bad "full disk, repair in place: exit $rc, want 1"
	one_line "full disk, repair in place" "^iotape: check: $mnt/cut.iotape: .*No space left on device.*-o OUT"
	# the disk fills while recording: the message says the trace IS
	# incomplete, what it holds, and how to keep it
	rm -f "$mnt"/*
	if "$IOTAPE" record -q -o /dev/null -- true 2>/dev/null; then
		mkdir w
		rc=0; timeout 120 "$IOTAPE" record -q -o "$mnt/t.iotape" -- \
			"$PROGS/rel_writer" "$d/w" 12000 100 >/dev/null 2>err || rc=$?
		[ "$rc" = 1 ] || bad "disk full while recording: exit $rc, want 1"
		grep -Eq "^iotape: record: $mnt/t.iotape: No space left on device; the trace is incomplete: it holds [0-9]+ of the [0-9]+ events recorded \(up to [0-9.]+ s\) and no index; 'iotape check --repair $mnt/t.iotape' keeps them" err &&
			ok "disk full while recording: the message says what is kept" ||
			bad "disk full while recording: $(cat err)"
		n=$(grep -o 'it holds [0-9]*' err | grep -o '[0-9]*$')
		cp "$mnt/t.iotape" full.iotape
		rm -f "$mnt/t.iotape"
		"$IOTAPE" check --repair -o fixed.iotape full.iotape >/dev/null 2>&1 ||
			bad "disk full while recording: the trace left cannot be repaired"
		# lines under an event (async requests, mapped pages) are not events
		got=$("$IOTAPE" dump fixed.iotape 2>/dev/null | grep -v -c -e '^#' -e ' --- ' -e ' +++ ' -e '^[0-9][0-9]*  *[0-9][0-9]*\.[0-9]*   ')
		[ "$got" = "${n:-x}" ] && ok "disk full while recording: the repaired trace holds the $n events said" ||
			bad "disk full while recording: the message said $n events, the repaired trace has $got"
		rm -rf full.iotape fixed.iotape w
	else
		not_run+=("the disk-full-while-recording check (ptrace is not permitted here)")
	fi
	umount "$mnt"
fi
no_leftover "the end"

[ "$nbad" = 0 ] || { echo "$nbad checks failed" >&2; exit 1; }
[ ${#not_run[@]} = 0 ] || skip "the others passed; not run: ${not_run[*]}"
echo ok
