#!/bin/sh
# tar-workload.sh TARBALL WORK - tar x of a real tree, then tar c of it.
set -e
TARBALL=$1
WORK=$2
mkdir -p "$WORK"
cd "$WORK"
tar xf "$TARBALL"
tar cf tree.tar "$(tar tf "$TARBALL" | head -n1 | cut -d/ -f1)"
