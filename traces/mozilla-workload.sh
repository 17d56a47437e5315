#!/bin/sh
# mozilla-workload.sh SRC WORK - the Mozilla-tree script (seed 004) on a real
# source tree: copy it in, sync, copy it twice more, sync, du, rm -rf,
# tar c, sync.  Each top-level command is one phase of the report.
# (The original script copied mozilla to mozilla-2 twice; the second copy
# here goes to tree-3 as its label says.)
# With PHASE_LOG=FILE set (native runs of 'make validate'), the start of
# each phase and the end of the last are appended to FILE as seconds.
set -e
SRC=$1
WORK=$2
ph() { [ -z "${PHASE_LOG:-}" ] || date +%s.%N >>"$PHASE_LOG"; }
mkdir -p "$WORK"
ph; cp -a "$SRC" "$WORK/tree"
ph; sync
cd "$WORK"
ph; cp -a tree tree-2
ph; cp -a tree-2 tree-3
ph; sync
ph; du tree >/dev/null
ph; rm -rf tree
ph; tar c tree-2 >tree.tar
ph; sync
ph
