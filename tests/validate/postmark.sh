#!/bin/sh
# postmark.sh - small-file transactions: Debian's postmark (mail-server
# style: 4,000 files of 0.5-9 KiB in 10 directories, 40,000 transactions of
# create/delete and read/append, then the deletion of what is left).  The
# location is relative: postmark keeps paths in buffers of 80 bytes.
. "$(dirname "$0")/lib.sh"
case $1 in
setup) mkdir -p pm ;;
run)	printf 'set location pm\nset number 4000\nset transactions 40000\nset size 500 9000\nset subdirectories 10\nset seed 42\nrun\nquit\n' |
		postmark >/dev/null ;;
esac
