#!/bin/bash
# replay_listing_order.sh - a directory listed in another order than
# recorded is no mismatch; one with an entry more or less is.  On a tmpfs:
#  1. two processes fill a directory at once (xargs -P2), ls and find list
#     it: replayed with --verify, exit 0, no mismatch (the replay makes the
#     files in its own interleaving, which tmpfs lists in that order);
#  2. ls and find of a directory of 2000 files made in a shuffled order,
#     replayed onto the same files made in name order: each listing takes
#     several getdents calls whose counts differ (names of many lengths),
#     their total does not; no mismatch, the summary counts the listings
#     in another order;
#  3. the same trace replayed onto its starting tree with a file added, or
#     one removed: the listings' getdents calls are mismatches, exit 4.
set -u
. "$(dirname "$0")/lib.sh"
need_root
"$IOTAPE" record -q -o /dev/null -- true >/dev/null 2>&1 || skip "cannot ptrace here"
T=$(mktemp -d "${TMPDIR:-/tmp}/iotape-lsorder.XXXXXX")
M=$T/m
mkdir "$M"
mount -t tmpfs -o size=256m iotape-lsorder "$M" || skip "cannot mount a tmpfs"
trap 'cd /; umount "$M"; rm -rf "$T"' EXIT
A=$M/A
mkdir -p "$A/x" "$A/d"

# replay TRACE ROOT [options]: exit status in rc, summary in $T/out
replay() {
	local t=$1 r=$2
	shift 2
	rc=0
	"$IOTAPE" replay "$t" --root "$r" --timing afap --verify "$@" >"$T/out" 2>&1 || rc=$?
}
mismatches() { sed -n 's/^  mismatches   \([0-9]*\).*/\1/p' "$T/out"; }

# 2000 names of 3 to 27 bytes, "fI-" and I mod 23 x's: dirent64
# records of 24 to 48 bytes, so that a call's 32 KiB holds another count
# of bytes in another order
names() { awk '{ printf "f%d-%s\n", $1, substr("xxxxxxxxxxxxxxxxxxxxxxx", 1, $1 % 23) }'; }
export -f names

# 1. xargs -P2, then ls and find
(cd "$A/x" && "$IOTAPE" record -q -o "$T/x.iotape" -- bash -c \
	'seq 1 2000 | names | xargs -P2 -n 50 sh -c "for n; do echo \$n >\$n; done" sh; ls >/dev/null; find . >/dev/null') ||
	fail "recording xargs -P2 failed"
[ "$(ls "$A/x" | wc -l)" = 2000 ] || fail "the recorded workload did not make 2000 files"
mkdir "$M/R1"
replay "$T/x.iotape" "$M/R1"
[ "$rc" = 0 ] && [ "$(mismatches)" = 0 ] ||
	{ cat "$T/out"; fail "xargs -P2 + ls replayed with --verify: exit $rc, $(mismatches) mismatches"; }
[ "$(ls "$M/R1$A/x" | wc -l)" = 2000 ] || fail "the replay did not make the 2000 files"

# 2. a directory made in a shuffled order, replayed onto one made in name order
for n in $(seq 1 2000 | awk '{ print ($1 * 7919) % 2003 }' | names); do : >"$A/d/$n"; done
"$IOTAPE" record -q -o "$T/d.iotape" -- sh -c "ls $A/d >/dev/null; find $A/d >/dev/null" ||
	fail "recording ls failed"
"$IOTAPE" dump "$T/d.iotape" | grep -c 'getdents64(.* = [1-9]' >"$T/n"
[ "$(cat "$T/n")" -ge 4 ] || fail "ls and find read the directory in $(cat "$T/n") calls, not several each"
mkdir "$M/R2"
replay "$T/d.iotape" "$M/R2"
ls -f "$A/d" >"$T/recorded"
ls -f "$M/R2$A/d" >"$T/listed"
cmp -s "$T/recorded" "$T/listed" && fail "the root lists the files as recorded: nothing to test"
[ "$rc" = 0 ] && [ "$(mismatches)" = 0 ] ||
	{ cat "$T/out"; fail "a listing in another order: exit $rc, $(mismatches) mismatches"; }
grep -Eq '^  listings     [1-9][0-9]* directory listings returned the recorded bytes in all in another order \([1-9]' "$T/out" ||
	{ cat "$T/out"; fail "the listings in another order are not counted"; }

# 3. an entry added, then one missing, in the starting tree
for change in add remove; do
	rm -rf "$M/R3"
	mkdir "$M/R3"
	"$IOTAPE" replay "$T/d.iotape" --root "$M/R3" --prepare-only -q || fail "cannot prepare"
	if [ $change = add ]; then
		: >"$M/R3$A/d/an-entry-more"
	else
		rm "$M/R3$A/d/f1910-x"	# the first made
	fi
	replay "$T/d.iotape" "$M/R3" --no-prepare --force
	[ "$rc" = 4 ] || { cat "$T/out"; fail "an entry more or less ($change): exit $rc, not 4"; }
	grep -Eq '^  mismatches   [1-9][0-9]* \(getdents64 [1-9]' "$T/out" ||
		{ cat "$T/out"; fail "an entry more or less ($change): the getdents calls are no mismatches"; }
	grep -Eq '^  listings     2 directory listings returned other bytes in all than recorded' "$T/out" ||
		{ cat "$T/out"; fail "an entry more or less ($change): the summary does not say which listings differ"; }
done
echo "ok: listings in another order match, one with an entry more or less does not"
