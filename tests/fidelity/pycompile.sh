#!/bin/sh
# pycompile.sh DIR - an interpreter byte-compiling a library with 2 worker
# processes, started through whatever python3 is first on PATH (a version
# manager's shell shims, where there are some).
mkdir -p "$1/lib" || exit 1
cp -r /usr/lib/python3.11/asyncio /usr/lib/python3.11/email /usr/lib/python3.11/json "$1/lib/"
python3 -m compileall -q -j2 "$1/lib"
