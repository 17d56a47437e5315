#!/bin/sh
# fsync.sh - fsync-heavy creation from two processes: 2 x 1,500 files of
# 8 KiB in two directories, each fsynced before close (tests/progs/val_fsync).
. "$(dirname "$0")/lib.sh"
case $1 in
setup) cp "$2/val_fsync" . ;;
run) ./val_fsync 2 1500 8192 ;;
esac
