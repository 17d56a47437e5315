#!/bin/sh
# grep.sh - searching a tree: 'grep -r' over the suite's larger tree (a
# source tree and a Python library, ~9,000 files), then 'find' of its
# Python files counted by 'xargs -P2 wc -l'; reads only.
. "$(dirname "$0")/lib.sh"
case $1 in
setup) cp -a "$2/big" big ;;
run)	mark grep
	grep -rl 'include' big >/dev/null || :
	mark find
	find big -name '*.py' -print0 | xargs -0 -P2 -n 200 wc -l >/dev/null
	;;
esac
