#!/bin/sh
# gobuild.sh - a Go build from an empty build cache: 'go build -a' of a
# small program compiles the standard packages it imports (runtime, os,
# fmt, sort, path/filepath: ~40 compiler and assembler processes, two at
# a time, each a multithreaded Go program making raw system calls), links
# it, and runs it over the tree; then sync.
. "$(dirname "$0")/lib.sh"
case $1 in
setup)	cp -a "$2/src" src
	mkdir w
	cat >w/main.go <<'GO'
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	var names []string
	filepath.Walk(os.Args[1], func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, ".h") {
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	fmt.Println(len(names))
}
GO
	printf 'module example.com/walk\n\ngo 1.19\n' >w/go.mod ;;
run)	export GOCACHE="$PWD/gocache" GOPATH="$PWD/gopath" HOME="$PWD" GOFLAGS=
	mark build
	(cd w && go build -a -o walk .)
	mark walk
	w/walk src >/dev/null
	mark sync
	sync ;;
esac
