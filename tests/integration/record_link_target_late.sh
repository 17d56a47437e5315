#!/bin/bash
# record_link_target_late.sh - a symlink of the starting tree first met
# after the workload removed another link its target is reached through
# (npm workspaces: `npm ci` unlinks node_modules/b -> ../packages/b, then
# meets node_modules/.bin/b-cli -> ../b/cli.js, makes node_modules/b
# again and opens b/cli.js).  The target's state was taken through the
# tree as it was then: absent, so the replay's starting tree had no
# packages/b/cli.js and the open after the link was made again met ENOENT
# (8-9 mismatches a replay of npm workspaces, both backends).  Now the
# target is followed through the removed link's starting target: the
# state of pkg/b/cli.js, a regular file.  The link met with a relative
# target, an absolute one, and with the removed link's name a directory
# at that moment; recorded with ptrace (with the fast path and without)
# and bpf where it loads.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_iotape_cmd replay
record_tmp linklate
for b in "${BACKENDS[@]}"; do
	backend_opts "$b"
	for how in rel abs dir; do
		d=$T/$b-$how W=$T/$b-$how/w
		mkdir -p "$W/pkg/b" "$W/nm/.bin" "$d/r"
		echo 'console.log(1)' >"$W/pkg/b/cli.js"
		ln -s ../pkg/b "$W/nm/b"
		tgt=../b/cli.js
		[ $how = abs ] && tgt=$W/nm/b/cli.js
		ln -s "$tgt" "$W/nm/.bin/b-cli"
		meet='ls -l nm/.bin/b-cli'
		[ $how = dir ] && meet='mkdir nm/b; ls -l nm/.bin/b-cli; rmdir nm/b'
		(cd "$W" && "$IOTAPE" record -q "${OPTS[@]}" -o "$d/t.iotape" -- \
			sh -c "rm nm/b; $meet; ln -s ../pkg/b nm/b; cat nm/b/cli.js") >"$d/rec.out" 2>&1 ||
			{ cat "$d/rec.out"; fail "$b $how: record: exit $?"; }
		"$IOTAPE" dump --states "$d/t.iotape" | grep 'state ".*cli.js"' >"$d/states"
		grep -q "state \"$W/pkg/b/cli.js\" S_IFREG" "$d/states" && ! grep -q absent "$d/states" ||
			{ cat "$d/states"; fail "$b $how: the target's starting state is not pkg/b/cli.js's"; }
		rm -rf "$W"
		replay_verified "$b $how" "$d/t.iotape" "$d/r" "$d/out"
	done
	echo "ok ($b): the target through the removed link is pkg/b/cli.js, 0 mismatches (relative, absolute, a directory in its place)"
done
