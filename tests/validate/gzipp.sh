#!/bin/sh
# gzipp.sh - files compressed in place by two processes at a time: 'xargs
# -P2 gzip' of every header of the suite's tree (each file read, its .gz
# written, the original removed), then the same of 'gunzip' back.
. "$(dirname "$0")/lib.sh"
case $1 in
setup)	cp -a "$2/src" src ;;
run)	mark gzip
	find src -type f -name '*.h' -print0 | xargs -0 -P2 -n 200 gzip -6
	mark gunzip
	find src -type f -name '*.h.gz' -print0 | xargs -0 -P2 -n 200 gunzip ;;
esac
