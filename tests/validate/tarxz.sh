#!/bin/sh
# tarxz.sh - archive extract and compress: tar xJf of the suite's source
# tree, then tar c of it through xz -1 into a new archive.
. "$(dirname "$0")/lib.sh"
case $1 in
setup) cp "$2/src.tar.xz" . ;;
run)	mark extract
	tar xJf src.tar.xz
	mark compress
	tar cf - src | xz -1 -T1 >out.tar.xz ;;
esac
