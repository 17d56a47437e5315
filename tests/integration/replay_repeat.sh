#!/bin/bash
# replay_repeat.sh - replay the bundled test traces many times as fast as
# possible: races between replay threads (a thread ending while another of
# its process starts) show as a crash in a few runs in a hundred, not in
# one (the binary before the fix: 17 of 200).  Every replay must end with
# the status the man page gives for its trace: 0 for a trace closed
# cleanly, 3 for one that was not (unclosed.iotape); anything else, a
# crash or an error, is counted.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_iotape_cmd replay
N=${REPLAY_REPEAT:-200}
T=$(mktemp -d /var/tmp/iotape-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
bad=0
# replay_n TRACE N EXIT
replay_n() {
	local i rc
	for i in $(seq "$2"); do
		rm -rf "$T/r"; mkdir "$T/r"
		"$IOTAPE" replay "$1" --root "$T/r" -t afap -q 2>"$T/err"
		rc=$?
		if [ $rc != "$3" ]; then
			echo "$(basename "$1") run $i: exit $rc, expected $3: $(head -c 300 "$T/err")"
			bad=$((bad + 1))
		fi
	done
	echo "$(basename "$1"): $2 replays"
}
# basic.iotape has a thread whose spawn is not recorded: the race above
replay_n "$DATA/basic.iotape" "$N" 0
replay_n "$DATA/many.iotape" $(( N / 10 )) 0
replay_n "$DATA/unclosed.iotape" $(( N / 10 )) 3
[ $bad = 0 ] || fail "$bad replays crashed or exited otherwise than expected"
echo ok
