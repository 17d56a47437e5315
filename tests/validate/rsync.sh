#!/bin/sh
# rsync.sh - rsync of a tree: a full copy of the suite's larger tree, then
# a second pass comparing every file's checksum, then a delete pass, and
# sync (rsync itself does not: its writes would be left to the unmount).
. "$(dirname "$0")/lib.sh"
case $1 in
setup) cp -a "$2/big" src ;;
run)	mark copy
	rsync -a src/ copy/
	mark checksum
	rsync -a --checksum src/ copy/
	mark delete
	rm -rf src/c++
	rsync -a --delete src/ copy/
	mark sync
	sync ;;
esac
