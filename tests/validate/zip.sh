#!/bin/sh
# zip.sh - an archive made and unpacked with Info-ZIP: 'zip -r' of the
# suite's source tree (deflate, one process), then 'unzip' of it into
# another directory, then sync.
. "$(dirname "$0")/lib.sh"
case $1 in
setup) cp -a "$2/src" src ;;
run)	mark zip
	zip -qr a.zip src
	mark unzip
	unzip -q a.zip -d out
	mark sync
	sync ;;
esac
