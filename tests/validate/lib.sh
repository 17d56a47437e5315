# lib.sh - what the workloads of the validation suite share (sourced).
# Each workload NAME.sh is called twice by 'iotape validate', in the work
# directory of a fresh filesystem:
#   sh NAME.sh setup IN     untimed: the starting state (IN: the suite's inputs)
#   sh NAME.sh run          the workload itself
set -eu

# mark NAME - phase NAME starts: the lookup is the mark the recording and
# the replay see; native runs also write it to $IOTAPE_PHASE_LOG, which
# 'iotape validate' stamps as it comes (see 'iotape validate --help'):
# 'echo' is built in, so a mark starts no process the recording does not
# have.
mark() {
	test -e "/dev/null/iotape-phase/$1" || :
	[ -z "${IOTAPE_PHASE_LOG:-}" ] || echo "$1" >>"$IOTAPE_PHASE_LOG"
}

# the script's directory, for the helpers beside it
HERE=$(cd "$(dirname "$0")" && pwd)
