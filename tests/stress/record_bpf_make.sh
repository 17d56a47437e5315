#!/bin/bash
# record_bpf_make.sh - record_bpf.sh's `same make` many times ('make
# stress'): `make -s -C proj` of a small C project recorded once with
# ptrace and ROUNDS times (default 40) with each of bpf and mixed, every
# recording compared with the ptrace one by record_bpf.sh's comparison.
# One differed once in about eight runs of `make check` (GNU ld's crti.o
# as descriptor 7, not 6: a descriptor of the recorder's loader thread,
# open at the fork, stayed open in the program; record_inherit.sh): a
# race of the recorder's start shows only in many recordings.
# The failing recordings are kept in $KEEP_DIR if set.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_cmd python3
need_cmd cc
need_cmd make
d=$(mktemp -d /tmp/iotape-bpfmake.XXXXXX)
trap 'rm -rf "$d"' EXIT
cd "$d"
export LC_ALL=C
need_bpf
rounds=${ROUNDS:-40}

mk_proj proj '#include <stdio.h>'
same_record make ptrace "cp -a ../proj proj" "make -s -C proj"
bad=0
for b in bpf mixed; do
	n=0
	for i in $(seq "$rounds"); do
		same_record make $b "cp -a ../proj proj" "make -s -C proj"
		same_cmp make ptrace $b 2>"$d/why" && continue
		n=$((n + 1))
		echo "$b round $i: $SAME_WHY: $(head -12 "$d/why")"
		if [ -n "${KEEP_DIR:-}" ]; then
			mkdir -p "$KEEP_DIR" && cp "$d/make.$b.iotape" "$KEEP_DIR/make.$b.$i.iotape"
		fi
	done
	echo "$b: $n of $rounds recordings differ from ptrace's"
	bad=$((bad + n))
done
[ $bad = 0 ] || fail "$bad recordings of make differ from ptrace's"
exit 0
