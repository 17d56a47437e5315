#!/bin/sh
# setattr.sh - changing a tree's attributes in place: modes ('chmod -R'),
# owners ('chown -R') and times ('touch' of every file through
# 'find -exec ... +'), ~5,000 entries (the
# suite's larger tree); no data moves.
. "$(dirname "$0")/lib.sh"
case $1 in
setup) cp -a "$2/big" src ;;
run)	mark chmod
	chmod -R g+w,o-r src
	mark chown
	chown -R 1:1 src
	mark touch
	find src -type f -exec touch -d @1700000000 {} + ;;
esac
