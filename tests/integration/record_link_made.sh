#!/bin/bash
# record_link_made.sh - an entry of the starting tree first named through
# a symlink the workload made: stow folds a package's directory into one
# (target/lib -> ../stow/alpha/lib), and its next run names what is in it
# as target/lib/alpha before it lists stow/alpha/lib.  The state was taken
# under that name only, whose directory did not exist at the start, and
# the entry, met, was taken under no other name: the replay's starting
# tree had no real/sub (6 mismatches here: a stat and reads through the
# link, the listing of real, and real/sub itself; 75 in a stow run) until
# 2026-12-07; now such a state is written under its directory's real path
# too.  Recorded with the default backend and with ptrace without the
# fast path.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_iotape_cmd replay
tmp_dir /var/tmp/iotape-test
cat >"$T/work.sh" <<'W'
set -e
ln -s ../real t/link
cat t/link/sub/f
rm t/link
ls real real/sub
cat real/sub/f
W
for b in auto "ptrace --no-fastpath"; do
	n=${b%% *}
	w=$T/$n/w
	mkdir -p "$w/real/sub" "$w/t" "$T/$n/r"
	echo data >"$w/real/sub/f"
	# shellcheck disable=SC2086
	(cd "$w" && "$IOTAPE" record -q --backend $b -o "$T/$n/t.iotape" -- sh "$T/work.sh" >/dev/null) ||
		fail "$b: record: exit $?"
	"$IOTAPE" replay "$T/$n/t.iotape" --root "$T/$n/r" --prepare-only -q ||
		fail "$b: the replay could not prepare its tree"
	r=$T/$n/r$w
	[ -f "$r/real/sub/f" ] || fail "$b: the starting tree has no real/sub/f"
	[ ! -e "$r/t/link" ] || fail "$b: the starting tree has t/link, which the workload made"
	rm -rf "$T/$n/r" && mkdir "$T/$n/r"
	replay_clean "$b" "$T/$n/t.iotape" "$T/$n/r" "$T/$n/out"
	echo "ok ($b): an entry met through a new link taken under its real name; 0 mismatches"
done
