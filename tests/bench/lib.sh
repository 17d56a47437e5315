# lib.sh - helpers the bench scripts share (sourced; W is the script's
# scratch directory).

# time_wall CMD... - wall seconds of one run (setup done by the caller)
time_wall() {
	local s e
	s=$(date +%s.%N)
	"$@" >/dev/null 2>"$W/err" || { echo "FAILED: $* ($(tail -1 "$W/err"))" >&2; }
	e=$(date +%s.%N)
	echo "$e - $s" | bc
}

# median of the numbers on stdin, one a line (the upper one of an even count)
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
