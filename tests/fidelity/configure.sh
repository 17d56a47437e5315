#!/bin/sh
# configure.sh DIR - a configure-style script: header and function checks,
# each a small C program written with cat, compiled with cc, its output
# edited with sed, removed with rm (hundreds of short processes), in DIR.
cd "$1" || exit 1
: > confdefs.h
: > config.log
n=0
# what autoconf does around each compiler run: log it, filter its errors
logged() {
	echo "configure: trying $*" | sed 's/^/| /' >> config.log
	"$@" 2>conftest.err
	st=$?
	grep -v '^ *+' conftest.err > conftest.er1
	cat conftest.er1 >> config.log
	mv -f conftest.er1 conftest.err
	test $(expr $st + 0) -eq 0
}
check_header() {
	cat > conftest.c <<EOT
#include "confdefs.h"
#include <$1>
int main(void) { return 0; }
EOT
	if logged cc -c conftest.c -o conftest.o; then
		echo "#define HAVE_$(echo "$1" | sed 's/[^A-Za-z0-9]/_/g' | tr a-z A-Z) 1" >> confdefs.h
	fi
	cat confdefs.h | tail -n 1 >> config.log
	rm -f conftest.c conftest.o conftest.err
}
check_func() {
	cat > conftest.c <<EOT
#include "confdefs.h"
char $1(void);
int main(void) { return $1() != 0; }
EOT
	if logged cc -o conftest conftest.c && test -s conftest; then
		echo "#define HAVE_$(echo "$1" | tr a-z A-Z) 1" >> confdefs.h
	fi
	cat confdefs.h | tail -n 1 >> config.log
	rm -f conftest conftest.c conftest.err
}
for h in stdio.h stdlib.h string.h unistd.h fcntl.h sys/stat.h sys/types.h \
	 sys/time.h errno.h limits.h stdint.h inttypes.h dirent.h signal.h \
	 pthread.h nosuch.h locale.h wchar.h ctype.h; do
	check_header $h
	n=$((n + 1))
done
for f in malloc strdup strndup memcpy fsync fdatasync posix_fallocate \
	 openat mkdirat renameat2 statx nosuchfunc getline strlcpy pread pwrite \
	 mmap munmap sysconf; do
	check_func $f
	n=$((n + 1))
done
sed -n 's/^#define \([A-Z0-9_]*\) 1$/\1/p' confdefs.h | sort > found.txt
cat found.txt | wc -l > count.txt
echo "$n checks, $(cat count.txt) found"
