#!/bin/sh
# compileall.sh - an interpreter byte-compiling a large library with two
# worker processes: python3 -m compileall -j2 of a copy of /usr/lib/python3.11
# (its __pycache__ removed), run by /usr/bin/python3 itself, not a shim.
. "$(dirname "$0")/lib.sh"
case $1 in
setup)	cp -a /usr/lib/python3.11 lib
	find lib -name __pycache__ -prune -exec rm -rf {} + ;;
run) /usr/bin/python3 -m compileall -q -j2 lib >/dev/null ;;
esac
