#!/bin/sh
# make.sh - make -j2: iotape's own trace library (format/) from its sources
# ('git archive' of the tree the suite runs from).
. "$(dirname "$0")/lib.sh"
case $1 in
setup) cp -a "$2/proj" proj ;;
run) make -C proj -s -j2 BUILD=b b/libiotape.a >/dev/null ;;
esac
