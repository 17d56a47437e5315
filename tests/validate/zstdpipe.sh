#!/bin/sh
# zstdpipe.sh - an archive through a pipe: 'tar c' of the suite's larger
# tree into 'zstd -T2' (a compressor with 2 worker threads reading the
# pipe), then 'zstd -d' into 'tar x' in another directory, then sync.
. "$(dirname "$0")/lib.sh"
case $1 in
setup) cp -a "$2/big" big ;;
run)	mark compress
	tar cf - big | zstd -q -T2 -3 -o a.tar.zst
	mark extract
	mkdir out
	zstd -q -d -c a.tar.zst | tar xf - -C out
	mark sync
	sync ;;
esac
