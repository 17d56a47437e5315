#!/bin/sh
# javac.sh - a Java build: 'javac' of 240 generated classes in 12
# packages (one JVM, multithreaded, reading the JDK's modules image
# through mmap), 'jar' of the classes, then the program run from the jar
# over the tree; then sync.
. "$(dirname "$0")/lib.sh"
case $1 in
setup)	cp -a "$2/src" src
	for p in $(seq 0 11); do
		mkdir -p gen/app/p$p
		for c in $(seq 0 19); do
			n=$(( (c + 1) % 20 ))
			cat >gen/app/p$p/C$c.java <<JAVA
package app.p$p;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

public class C$c {
    private final Map<String, Integer> counts = new TreeMap<>();

    public int add(String key, int by) {
        return counts.merge(key + "$p.$c", by, Integer::sum);
    }

    public List<String> keys(int limit) {
        List<String> out = new ArrayList<>();
        for (String k : counts.keySet()) {
            if (out.size() >= limit) break;
            out.add(k);
        }
        return out;
    }

    public static int chain(int depth) {
        return depth <= 0 ? $c : C$n.chain(depth - 1) + $c;
    }
}
JAVA
		done
	done
	cat >gen/app/Main.java <<'JAVA'
package app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.stream.Stream;

public class Main {
    public static void main(String[] args) throws IOException {
        app.p0.C0 c = new app.p0.C0();
        long n;
        try (Stream<Path> s = Files.walk(Paths.get(args[0]))) {
            n = s.filter(p -> p.toString().endsWith(".h")).peek(p -> c.add(p.getFileName().toString(), 1)).count();
        }
        System.out.println(n + " " + app.p0.C0.chain(5) + " " + c.keys(3));
    }
}
JAVA
	;;
run)	mark javac
	javac -d classes $(find gen -name '*.java' | sort)
	mark jar
	jar cf app.jar -C classes .
	mark java
	java -cp app.jar app.Main src >/dev/null
	mark sync
	sync ;;
esac
