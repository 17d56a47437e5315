#!/bin/sh
# sort.sh - a large sort with temporary files: the lines of every file of
# the suite's source tree, concatenated, sorted by 'sort' with 2 threads
# and a 4 MiB buffer (runs written to temporary files in the work
# directory and merged), then 'uniq -c | sort -rn' of the result.
. "$(dirname "$0")/lib.sh"
case $1 in
setup) cp -a "$2/src" src; mkdir tmp ;;
run)	mark cat
	find src -type f -print0 | xargs -0 cat >all.txt
	mark sort
	sort -S 4M --parallel=2 -T tmp all.txt >sorted.txt
	mark count
	uniq -c sorted.txt | sort -rn -S 4M -T tmp >counts.txt
	mark sync
	sync ;;
esac
