#!/usr/bin/env bash
# Runs a published crate's own integration tests twice, each test in its
# own process: against the crate itself, and against samaritan's drop-in
# renamed to its name (its `sim` feature on). The tests are copied out of
# cargo's registry into scratch crates under $WORK (never into git).
#
#   compat/own-suite.sh futures 0.3.34 samaritan-futures futures "thread-pool" \
#       "futures-test = \"=0.3.34\"" lock_mutex oneshot eventual
#
# Arguments: the crate, its version, the drop-in package, its directory in
# this checkout, the features both sides need, extra dev-dependency lines
# (one string, `;`-separated), then the test files (names under tests/).
# Prints one line per test, "file test crate-verdict drop-in-verdict".
set -euo pipefail
crate=$1 version=$2 dropin=$3 dir=$4 features=$5 extra=$6
shift 6
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${WORK:-$root/target/own-suite}/$crate-$version"
cap="${CAP:-60}"
rm -rf "$work" && mkdir -p "$work"
# Where cargo unpacks the published package.
mkdir -p "$work/fetch/src" && touch "$work/fetch/src/lib.rs"
printf '[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2021"\n[workspace]\n[dependencies]\n%s = "=%s"\n' \
    "$crate" "$version" >"$work/fetch/Cargo.toml"
src=$(cd "$work/fetch" && cargo metadata --format-version 1 2>/dev/null | python3 -c "import sys, json
m = json.load(sys.stdin)
print([p for p in m['packages'] if p['name'] == '$crate'][0]['manifest_path'].rsplit('/', 1)[0])")
feats=""
for f in $features; do feats="$feats\"$f\","; done
for side in crate dropin; do
    mkdir -p "$work/$side/src" "$work/$side/tests" && touch "$work/$side/src/lib.rs"
    for t in "$@"; do cp "$src/tests/$t.rs" "$work/$side/tests/"; done
    if [ $side = crate ]; then
        dep="$crate = { version = \"=$version\", features = [${feats%,}] }"
    else
        dep="$crate = { package = \"$dropin\", path = \"$root/$dir\", features = [\"sim\",${feats%,}] }"
    fi
    printf '[package]\nname = "suite"\nversion = "0.0.0"\nedition = "2021"\n[workspace]\n[dev-dependencies]\n%s\n%s\n' \
        "$dep" "$(echo "$extra" | tr ';' '\n')" >"$work/$side/Cargo.toml"
    (cd "$work/$side" && cargo test -q --no-run >/dev/null 2>&1) || { echo "$side: does not build"; exit 1; }
done
run() { # side file test
    local exe
    exe=$(ls -t "$work/$1/target/debug/deps/$2-"* | grep -v '\.d$' | head -1)
    if timeout "$cap" "$exe" --exact "$3" >/dev/null 2>&1; then echo pass; else echo fail; fi
}
for t in "$@"; do
    exe=$(ls -t "$work/crate/target/debug/deps/$t-"* | grep -v '\.d$' | head -1)
    for name in $("$exe" --list 2>/dev/null | sed -n 's/: test$//p'); do
        echo "$t $name $(run crate "$t" "$name") $(run dropin "$t" "$name")"
    done
done
