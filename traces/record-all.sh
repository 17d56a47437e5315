#!/bin/sh
# record-all.sh - re-record the reference traces shipped in traces/.
# Run from the top of the source tree after 'make', as root or not.
# Inputs: fs/ of the linux-source-6.1 package (apt-get install
# linux-source-6.1), extracted once to /var/tmp/iotape-src.
set -eu
IOTAPE=${IOTAPE:-build/iotape}
SRC=/var/tmp/iotape-src
TARBALL=/usr/src/linux-source-6.1.tar.xz
W=/var/tmp/iotape-work
if [ ! -d $SRC/linux-source-6.1/fs ]; then
	[ -f $TARBALL ] || { echo "record-all.sh: $TARBALL missing: apt-get install linux-source-6.1" >&2; exit 1; }
	mkdir -p $SRC
	tar -C $SRC -xJf $TARBALL linux-source-6.1/fs
fi
only=${1:-all}
run() {	# name, command...
	name=$1; shift
	case $only in all|$name) ;; *) return 0 ;; esac
	rm -rf $W; mkdir -p $W
	sync
	echo "recording $name: $*"
	"$IOTAPE" record -o traces/$name.iotape -- "$@"
	rm -rf $W
}
run mozilla sh traces/mozilla-workload.sh $SRC/linux-source-6.1/fs $W/moz
# tarball of fs/ for tar x / tar c (made once)
if [ ! -f $SRC/fs.tar ]; then tar -C $SRC/linux-source-6.1 -cf $SRC/fs.tar fs; fi
run tar sh traces/tar-workload.sh $SRC/fs.tar $W/tar
run mongo sh traces/mongo-workload.sh $W/mongo 20000
# a real C project with make -j2: iotape itself, from a clean clone
if [ "$only" = all ] || [ "$only" = build ]; then
	rm -rf $W; mkdir -p $W
	git clone -q . $W/iotape
	echo "recording build: make -j2"
	"$IOTAPE" record -o traces/build.iotape -- make -C $W/iotape -j2 BUILD=b build-all
	rm -rf $W
fi
ls -l traces/*.iotape
