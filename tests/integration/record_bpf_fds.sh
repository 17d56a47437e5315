#!/bin/bash
# record_bpf_fds.sh - the program's descriptors at its start are the ones
# it has, not the recorder's close-on-exec ones.
#
# The recorder reads the forked program's descriptor table from /proc
# before it lets it exec; with the bpf backend that table still holds
# the BPF programs' and maps' descriptors the recorder had at the fork
# (all close-on-exec, gone at the exec).  Kept as the program's, they
# named its later calls on those numbers: a close of descriptor 5 after
# a socket() the recorder does not follow printed as
# close(5<anon_inode:bpf_link>).  Here the program closes 3-9, none of
# them open after its exec: no call may name a BPF object.
set -u
. "$SRCDIR/tests/integration/lib.sh"
need_root
d=$(mktemp -d /tmp/iotape-bpffds.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$d"' EXIT
cd "$d"
export LC_ALL=C
need_bpf

for b in bpf mixed; do
	"$IOTAPE" record -q --backend $b -o t.$b.iotape -- \
		sh -c 'exec 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-; exec 7</dev/null; cat <&7' 2>rec.err ||
		fail "$b: record failed: $(tail -3 rec.err)"
	"$IOTAPE" dump -y t.$b.iotape >dump.$b 2>&1 || fail "$b: dump failed: $(tail -3 dump.$b)"
	! grep -q 'anon_inode' dump.$b ||
		fail "$b: the recorder's descriptors as the program's: $(grep -m3 'anon_inode' dump.$b)"
	# what the program opened is still named
	grep -q '7</dev/null>' dump.$b || fail "$b: descriptor 7 not named: $(grep -m3 '(7' dump.$b)"
	echo "$b: $(grep -c 'close(' dump.$b) closes, none of a BPF object"
done
exit 0
