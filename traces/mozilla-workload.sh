#!/bin/sh
# mozilla-workload.sh SRC WORK - the Mozilla-tree script (seed 004) on a real
# source tree: copy it in, sync, copy it twice more, sync, du, rm -rf,
# tar c, sync.  Each top-level command is one phase of the report.
# (The original script copied mozilla to mozilla-2 twice; the second copy
# here goes to tree-3 as its label says.)
# Each phase starts with a phase mark (see 'iotape validate --help'): the
# lookup of /dev/null/iotape-phase/NAME, and in native runs of 'iotape
# validate' the line "NAME" written to $IOTAPE_PHASE_LOG, stamped there.
set -e
SRC=$1
WORK=$2
ph() {
	test -e "/dev/null/iotape-phase/$1" || :
	[ -z "${IOTAPE_PHASE_LOG:-}" ] || echo "$1" >>"$IOTAPE_PHASE_LOG"
}
mkdir -p "$WORK"
ph cp-in; cp -a "$SRC" "$WORK/tree"
ph sync; sync
cd "$WORK"
ph cp-2; cp -a tree tree-2
ph cp-3; cp -a tree-2 tree-3
ph sync-2; sync
ph du; du tree >/dev/null
ph rm; rm -rf tree
ph tar; tar c tree-2 >tree.tar
ph sync-3; sync
