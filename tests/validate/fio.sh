#!/bin/sh
# fio.sh - threaded random I/O: fio with psync, 2 threads, 4 KiB random
# reads and writes (70/30) over a 96 MiB file each, fsync every 64 writes.
. "$(dirname "$0")/lib.sh"
case $1 in
setup) : ;;
run) fio --name=rand --directory=. --size=96m --io_size=24m --rw=randrw --rwmixread=70 --bs=4k \
	--ioengine=psync --numjobs=2 --thread --fsync=64 --randseed=7 --group_reporting \
	--output=/dev/null ;;
esac
