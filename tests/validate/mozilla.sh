#!/bin/sh
# mozilla.sh - the Mozilla-tree script (traces/mozilla-workload.sh: cp -a,
# sync, cp -a twice, sync, du, rm -rf, tar c, sync) on two copies of the
# suite's tree.
. "$(dirname "$0")/lib.sh"
case $1 in
setup) mkdir tree0; cp -a "$2/src" tree0/a; cp -a "$2/src" tree0/b ;;
run) sh "$HERE/../../traces/mozilla-workload.sh" tree0 moz ;;
esac
