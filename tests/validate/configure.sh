#!/bin/sh
# configure.sh - a configure-style script as autoconf writes them: 40
# checks (headers compiled, functions linked, a type's size run), each
# writing conftest.c, running the compiler, logging to config.log through
# sed, appending to confdefs.h and removing conftest*: ~900 short
# processes, a shell between them, and small files made and removed.
. "$(dirname "$0")/lib.sh"
case $1 in
setup) : ;;
run)
	: >config.log
	: >confdefs.h
	log() { echo "configure: $*" >>config.log; }
	define() { echo "#define $1 1" >>confdefs.h; }
	upper() { echo "$1" | sed 's/[^a-zA-Z0-9]/_/g' | tr 'a-z' 'A-Z'; }
	try_compile() {	# the source is conftest.c
		sed 's/^/| /' conftest.c >>config.log
		cc -c conftest.c -o conftest.o >>config.log 2>&1
	}
	try_link() {
		sed 's/^/| /' conftest.c >>config.log
		cc conftest.c -o conftest >>config.log 2>&1
	}
	mark headers
	for h in stdio.h stdlib.h string.h strings.h inttypes.h stdint.h unistd.h fcntl.h \
		sys/stat.h sys/types.h sys/time.h sys/wait.h sys/mman.h sys/ioctl.h dirent.h \
		errno.h limits.h locale.h signal.h pthread.h; do
		log "checking for $h"
		{ cat confdefs.h; echo "#include <$h>"; echo "int main(void) { return 0; }"; } >conftest.c
		if try_compile; then define "HAVE_$(upper "$h")"; fi
		rm -f conftest.c conftest.o
	done
	mark functions
	for f in malloc realloc memmove strdup strndup strerror mmap munmap fsync fdatasync \
		posix_fallocate pread pwrite openat mkdirat getline setlocale clock_gettime; do
		log "checking for $f"
		{ cat confdefs.h; echo "char $f (void);"; echo "int main(void) { return $f (); }"; } \
			>conftest.c
		if try_link; then define "HAVE_$(upper "$f")"; fi
		rm -f conftest.c conftest.o conftest
	done
	mark sizes
	for t in int long; do
		log "checking size of $t"
		{ cat confdefs.h; echo "#include <stdio.h>"
		  echo "int main(void) { printf(\"%d\\n\", (int)sizeof($t)); return 0; }"; } >conftest.c
		if try_link; then echo "#define SIZEOF_$(upper "$t") $(./conftest)" >>confdefs.h; fi
		rm -f conftest.c conftest.o conftest
	done
	mark output
	sed -e 's/^#define \([A-Z0-9_]*\) \(.*\)/#define \1 \2/' confdefs.h >config.h
	wc -l config.h >>config.log ;;
esac
