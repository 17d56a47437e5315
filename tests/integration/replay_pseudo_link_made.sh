#!/bin/bash
# replay_pseudo_link_made.sh - a symlink the workload makes into /dev
# (systemctl mask: UNIT -> /dev/null), then calls that follow it: an open
# of it as a directory (systemctl revert: ENOTDIR) and a stat.  Under the
# root the link led to ROOT/dev/null, which is not there: ENOENT (2
# mismatches).  As with a link of the starting tree (replay_pseudo_link),
# a call that follows it is left out; once the link is removed, calls on
# its name are made again, and a link renamed keeps it under its new name.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
record_tmp pseudomade

for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	rm -rf "$T/w" "$T/root"
	mkdir -p "$T/w" "$T/root"
	(cd "$T/w" && "$IOTAPE" record -q "${OPTS[@]}" -o "$T/t.iotape" -- \
		sh -c 'ln -s /dev/null masked; ls masked/ 2>/dev/null; stat -L masked >/dev/null
			mv masked m2; stat -L m2 >/dev/null; rm m2; echo x >m2; cat m2 >/dev/null') \
		>/dev/null 2>"$T/err" || fail "$b: recording failed: $(cat "$T/err")"
	replay_verified "$b" "$T/t.iotape" "$T/root" "$T/out"
	"$IOTAPE" replay "$T/t.iotape" --root "$T/root" --force -o "$T/p.iotape" >/dev/null 2>&1 ||
		fail "$b: second replay failed"
	"$IOTAPE" dump "$T/p.iotape" | grep -E "openat\(AT_FDCWD, \"$T/w/m2\", O_RDONLY\)" |
		grep -qv 'not replayed' || fail "$b: the open of the file made after the link went was left out"
	echo "$b: calls through a link made into /dev left out, the file made in its place read, 0 mismatches"
done
echo "ok: links the workload makes into /dev are followed no more than those of the starting tree"
