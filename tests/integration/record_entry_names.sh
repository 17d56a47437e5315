#!/bin/bash
# record_entry_names.sh - one directory entry named two ways, the second
# met only after the workload changed the entry through the first: a file
# made as mod/../tool and then read as tool (a Go build's output, run by
# its plain name); files grown and a directory renamed in src/perl5, then
# read and listed through src/linkdir, a symlink to perl5 (rsync's tree
# compared through a link).  The recorder takes a path's state when a call
# first names it, so the second names' states were the changed entries,
# and the replay's starting tree had tool, the longer file and T2 from the
# start (5 mismatches: a stat found tool, a read found more, the rename
# EEXIST, a listing) until 2026-12-07; now an entry's state is taken under
# the first name met.  And a file first named as mod/../made/o before
# made/ existed, made so, then read as made/o (ghc's objects, named
# through its source directory and then by its linker): the second name's
# state was taken, of the file made, and the replay's tree had made/ and
# made/o from the start (2 mismatches, 12 in a ghc build, until
# 2026-12-07, evening).  Recorded with the default backend and with
# ptrace without the fast path.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_iotape_cmd replay
tmp_dir /var/tmp/iotape-test
cat >"$T/work.sh" <<'W'
set -e
test ! -e mod/../tool
echo built >mod/../tool
cat tool
rm tool
cat src/perl5/a src/perl5/T/b
echo more >>src/perl5/a
mv src/perl5/T src/perl5/T2
cat src/linkdir/a src/linkdir/T2/b
ls src/linkdir src/linkdir/T2
cd mod
test ! -e ../made/o
mkdir ../made
echo o >../made/o
cd ..
cat made/o
W
for b in auto "ptrace --no-fastpath"; do
	n=${b%% *}
	w=$T/$n/w
	mkdir -p "$w/mod" "$w/src/perl5/T" "$T/$n/r"
	echo a >"$w/src/perl5/a"
	echo b >"$w/src/perl5/T/b"
	ln -s perl5 "$w/src/linkdir"
	# shellcheck disable=SC2086
	(cd "$w" && "$IOTAPE" record -q --backend $b -o "$T/$n/t.iotape" -- sh "$T/work.sh" >/dev/null) ||
		fail "$b: record: exit $?"
	# the starting tree as the trace has it: no tool, a of 2 bytes, T
	"$IOTAPE" replay "$T/$n/t.iotape" --root "$T/$n/r" --prepare-only -q ||
		fail "$b: the replay could not prepare its tree"
	r=$T/$n/r$w
	[ ! -e "$r/tool" ] || fail "$b: the starting tree has tool, which the workload made"
	[ "$(stat -c %s "$r/src/perl5/a")" = 2 ] ||
		fail "$b: src/perl5/a starts with $(stat -c %s "$r/src/perl5/a") bytes, not 2"
	[ -d "$r/src/perl5/T" ] && [ ! -e "$r/src/perl5/T2" ] ||
		fail "$b: the starting tree does not have T (and no T2) in src/perl5"
	[ ! -e "$r/made" ] || fail "$b: the starting tree has made/, which the workload made"
	rm -rf "$T/$n/r" && mkdir "$T/$n/r"
	replay_clean "$b" "$T/$n/t.iotape" "$T/$n/r" "$T/$n/out"
	echo "ok ($b): each entry's starting state under its first name; replayed with 0 mismatches"
done
