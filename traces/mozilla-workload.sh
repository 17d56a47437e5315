#!/bin/sh
# mozilla-workload.sh SRC WORK - the Mozilla-tree script (seed 004) on a real
# source tree: copy it in, sync, copy it twice more, sync, du, rm -rf,
# tar c, sync.  Each top-level command is one phase of the report.
# (The original script copied mozilla to mozilla-2 twice; the second copy
# here goes to tree-3 as its label says.)
set -e
SRC=$1
WORK=$2
mkdir -p "$WORK"
cp -a "$SRC" "$WORK/tree"
sync
cd "$WORK"
cp -a tree tree-2
cp -a tree-2 tree-3
sync
du tree >/dev/null
rm -rf tree
tar c tree-2 >tree.tar
sync
