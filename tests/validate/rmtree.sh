#!/bin/sh
# rmtree.sh - removing a tree: 'rm -rf' of the suite's larger tree (a
# source tree and a Python library, ~4,600 files in 390 directories):
# a directory listed, its names unlinked, the directory removed.
. "$(dirname "$0")/lib.sh"
case $1 in
setup) cp -a "$2/big" big ;;
run)	mark rm
	rm -rf big ;;
esac
