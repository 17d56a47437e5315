#!/bin/bash
# replay_chattr_start.sh - files append-only and immutable (chattr +a,
# +i) and an append-only directory before the recording began: the
# workload appends, reads and makes an entry, and what the flags refuse
# (EPERM: a truncate, an open for writing without O_APPEND, an unlink, a
# rename, a write to the immutable file) fails.  The starting tree was
# made without the flags, so each refused call succeeded in the replay
# (4 mismatches for a log alone).  Now a path state holds the file's
# attribute flags (dump --states: attrs=a, attrs=i), the replay sets
# them last on its starting tree, and a replay again into that tree
# (--force) takes them off what it replaces.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_root
need_iotape_cmd record
need_iotape_cmd replay
need_cmd chattr
need_cmd lsattr
need_cmd truncate
tmp_dir /var/tmp/iotape-test
# files with these flags cannot be removed: clear them before the trap's rm
trap 'chattr -R -a -i "$T" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
mkdir -p "$T/w/d"
echo start >"$T/w/log"
echo fixed >"$T/w/ro"
echo e >"$T/w/d/e"
chattr +a "$T/w/log" 2>/dev/null || skip "chattr +a is not supported under $T"
chattr +i "$T/w/ro" || skip "chattr +i is not supported under $T"
chattr +a "$T/w/d" || skip "chattr +a of a directory is not supported under $T"
cat >"$T/cmd.sh" <<'SH'
cd "$1" || exit 2
echo one >>log || exit 1
truncate -s 0 log 2>/dev/null && exit 1
(true >log) 2>/dev/null && exit 1
rm -f log 2>/dev/null && exit 1
mv log log.1 2>/dev/null && exit 1
cat ro >/dev/null || exit 1
(echo x >>ro) 2>/dev/null && exit 1
truncate -s 0 ro 2>/dev/null && exit 1
rm -f ro 2>/dev/null && exit 1
echo n >d/new || exit 1
rm -f d/e 2>/dev/null && exit 1
mv d/e d/e.1 2>/dev/null && exit 1
exit 0
SH
for b in bpf ptrace; do
	if [ "$b" = bpf ] && ! bpf_loads "$T"; then
		continue
	fi
	"$IOTAPE" record -q --backend "$b" -o "$T/t.$b.iotape" -- sh "$T/cmd.sh" "$T/w" ||
		fail "$b: record: exit $?"
	"$IOTAPE" dump --states "$T/t.$b.iotape" >"$T/dump.$b"
	grep -q "state \"$T/w/log\" .* attrs=a" "$T/dump.$b" ||
		fail "$b: the state of log has no attrs=a: $(grep "state \"$T/w/log\"" "$T/dump.$b")"
	grep -q "state \"$T/w/ro\" .* attrs=i" "$T/dump.$b" ||
		fail "$b: the state of ro has no attrs=i: $(grep "state \"$T/w/ro\"" "$T/dump.$b")"
	grep -q "state \"$T/w/d\" .* attrs=a" "$T/dump.$b" ||
		fail "$b: the state of d has no attrs=a: $(grep "state \"$T/w/d\"" "$T/dump.$b")"
	mkdir "$T/r.$b"
	WHY="a call refused by chattr's flags of the starting tree was let through" \
		replay_clean "$b" "$T/t.$b.iotape" "$T/r.$b" "$T/out.$b" --timing afap
	grep -q '^  attr flags   3 files' "$T/out.$b" ||
		fail "$b: the summary does not count 3 files with flags: $(grep 'attr flags' "$T/out.$b")"
	[ "$(lsattr -d "$T/r.$b$T/w/ro" | cut -c5)" = i ] ||
		fail "$b: the replay's ro is not immutable: $(lsattr -d "$T/r.$b$T/w/ro")"
	# again into the same tree, whose files have their flags now
	WHY="a replay again into a tree with chattr's flags" \
		replay_clean "$b again" "$T/t.$b.iotape" "$T/r.$b" "$T/out2.$b" --timing afap --force
	grep -q 'cannot' "$T/out2.$b" && fail "$b again: $(grep -m1 cannot "$T/out2.$b")"
	n=$((${n:-0} + 1))
done
[ "${n:-0}" -gt 0 ] || skip "no backend"
echo "ok: a file +a, a file +i and a directory +a before the recording kept their flags in $n replays"
