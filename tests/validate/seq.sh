#!/bin/sh
# seq.sh - large sequential I/O: dd writes 384 MiB in 1 MiB blocks and
# syncs it, then reads it back, then copies it.
. "$(dirname "$0")/lib.sh"
case $1 in
setup) : ;;
run)	mark write
	dd if=/dev/zero of=big bs=1M count=384 conv=fsync status=none
	mark read
	dd if=big of=/dev/null bs=1M status=none
	mark copy
	dd if=big of=big2 bs=1M conv=fsync status=none ;;
esac
