#!/bin/bash
# load_forkstorm.sh - 'make stress': fault_load.sh with a 1,500-process
# fork storm (nested and flat), 256 threads x 50 files, 20 execs from a
# thread while its siblings write.
exec bash "$SRCDIR/tests/integration/fault_load.sh" 1500 256 50 20
