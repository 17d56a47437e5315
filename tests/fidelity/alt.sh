#!/bin/bash
# alt.sh FS RUNS 'CMD' TRACE... : RUNS rounds; in each, CMD natively ($W
# its work dir) and each TRACE replayed (RARGS: replay options; IOTAPES:
# the iotape programs to compare; RUNPFX: e.g. "nice -n -20" for both), every one
# on a fresh FS, caches dropped before.  Prints one line per run.
set -e
. "$(dirname "$0")/fidlib.sh"
IOTAPE=${IOTAPE:-$(dirname "$0")/../../build/iotape}
FS=$1 RUNS=$2 CMD=$3; shift 3
for i in $(seq $RUNS); do
	if [ -n "$CMD" ]; then
		fid_mount $FS; export W=$FM/w; mkdir -p $W; fid_drop
		t0=$(now); $RUNPFX sh -c "$CMD" >/dev/null; t1=$(now)
		printf "%d native %.3f\n" $i $(echo "$t1 - $t0" | bc)
	fi
	for t in "$@"; do
	for b in ${IOTAPES:-$IOTAPE}; do
		fid_mount $FS
		$b replay -q $t --root $FM --prepare-only >/dev/null
		fid_drop
		$RUNPFX $b replay -q $t --root $FM --no-prepare --force -o $FID_TMP/p.iotape ${RARGS} >/dev/null || true
		e=$($IOTAPE dump $FID_TMP/p.iotape | awk '/replay.elapsed_ns/ {print $3/1e9}')
		printf "%d %s %s %.3f\n" $i "$(basename $t)" "$(basename $b)" $e
		[ -z "$KEEPP" ] || cp $FID_TMP/p.iotape $KEEPP.$(basename $t).$(basename $b).$i
	done
	done
	fid_umount
done
