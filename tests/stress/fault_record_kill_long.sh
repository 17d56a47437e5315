#!/bin/bash
# fault_record_kill_long.sh - 'make stress': fault_record_kill.sh with 100
# random SIGKILLs of the traced program and 50 of the recorder, 50 Ctrl-Cs
# to the process group and 50 SIGINTs to iotape alone.
exec bash "$SRCDIR/tests/integration/fault_record_kill.sh" 100
