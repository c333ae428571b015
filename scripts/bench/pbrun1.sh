#!/bin/sh
# pbrun1.sh BIN MANIFEST: one cold run in a fresh --out
d=$(mktemp -d /tmp/pbr.XXXXXX); "$1" run --quiet --out "$d" "$2"; s=$?; rm -rf "$d"; exit $s
