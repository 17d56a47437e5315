# record_lib.sh - helpers for the record_*.sh tests (sourced after lib.sh).

# mask_dump FILE DIR - `iotape dump` lines with pids, times and durations
# taken out and DIR written as @DIR@; only lines that name DIR, plus
# process lines (---, +++).
mask_dump() {
	"$IOTAPE" dump "$1" | grep -v '^#' |
		sed -E -e 's/^[0-9]+ +[0-9.]+ //' -e 's/ <[0-9.]+>( \[on cpu [0-9.]+\])?( \[zeros\])?$/\2/' \
			-e "s|$2|@DIR@|g" -e 's/(parent|thread of|from thread) [0-9]+/\1 N/' |
		grep -E '@DIR@|^---|^\+\+\+' | grep -v '^--- start'
}

need_ptrace() {
	"$IOTAPE" record -q -o /dev/null -- true 2>/dev/null ||
		skip "ptrace is not permitted here (container or yama ptrace_scope)"
}

need_fastpath_lib() {
	[ -f "$(dirname "$IOTAPE")/libiotape-fast.so" ] || skip "libiotape-fast.so is not built"
}

# events_from_dir FILE DIR - every event line from the first that names
# DIR on, masked as in mask_dump (the dynamic loader's calls come before)
events_from_dir() {
	"$IOTAPE" dump "$1" | grep -v '^#' |
		sed -E -e 's/^[0-9]+ +[0-9.]+ //' -e 's/ <[0-9.]+>( \[on cpu [0-9.]+\])?( \[zeros\])?$/\2/' -e "s|$2|@DIR@|g" |
		grep -v '^---\|^+++' | awk '/@DIR@/ { on = 1 } on'
}

# mk_proj DIR [PREFIX] - a three-file C program with a Makefile in DIR,
# each source starting with the line PREFIX if given (e.g. an #include)
mk_proj() {
	local d=$1 pre=${2:-} i
	mkdir -p "$d"
	for i in 1 2 3; do
		{ [ -n "$pre" ] && printf '%s\n' "$pre"
		  printf 'int f%d(void) { return %d; }\n' $i $i; } >"$d/f$i.c"
	done
	printf 'int f1(void); int main(void) { return f1() - 1; }\n' >>"$d/f1.c"
	printf 'prog: f1.o f2.o f3.o\n\t$(CC) -o $@ $^\n%%.o: %%.c\n\t$(CC) -c -o $@ $<\n' >"$d/Makefile"
}
