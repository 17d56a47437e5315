#!/bin/sh
# med.sh FILE: medians of alt.sh's lines, per configuration (all but the
# first and last fields).
awk '{ k = $2; for (i = 3; i < NF; i++) k = k " " $i; print k "\t" $NF }' "$1" | sort -t '	' -k1,1 -k2,2g |
awk -F '\t' '{ if ($1 != k) { if (k != "") out(); k = $1; n = 0; l = "" } v[++n] = $2; l = l " " $2 }
function out() { printf "%-44s n=%d median %.3f  [%s ]\n", k, n, n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2, l }
END { if (k != "") out() }'
