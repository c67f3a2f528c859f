#!/usr/bin/env bash
# Builds BleuWire's libFuzzer targets and runs each for a bounded time.
#
#   scripts/fuzz.sh                      # every target, 60 s each
#   scripts/fuzz.sh cbor 600             # one target (compact | bleu24 | cbor), 600 s
#   scripts/fuzz.sh all 600 -jobs=1      # extra arguments go to libFuzzer
#
# Seeds come from Fuzz/Corpus/<target>/ (committed); the growing corpus and any crashing inputs
# go to .build-fuzz/ (not committed). A crash stops the run and names the input that caused it:
# add it to the tests, fix, rerun. Not part of scripts/test.sh (CI time).
set -euo pipefail
cd "$(dirname "$0")/.."

which="${1:-all}"
seconds="${2:-60}"
shift $(( $# > 2 ? 2 : $# ))

out=.build-fuzz
mkdir -p "$out"
mapfile -t sources < <(find Sources/BleuWire -name '*.swift' | sort)

build() {  # build <target> <entry file...>
    local target=$1; shift
    echo "== build fuzz-$target"
    swiftc -parse-as-library -sanitize=fuzzer,address -O -g -module-name BleuWireFuzz \
        "${sources[@]}" "$@" -o "$out/fuzz-$target" 2>&1 | grep -v "Cannot export local symbol" || true
    [ -x "$out/fuzz-$target" ] || { echo "error: fuzz-$target did not build" >&2; exit 1; }
}

run() {  # run <target> [libFuzzer arguments]
    local target=$1; shift
    mkdir -p "$out/corpus/$target" "$out/artifacts/$target"
    echo "== run fuzz-$target for ${seconds}s"
    "$out/fuzz-$target" "$out/corpus/$target" "Fuzz/Corpus/$target" \
        -max_total_time="$seconds" -artifact_prefix="$out/artifacts/$target/" -print_final_stats=1 "$@"
}

for target in compact bleu24 cbor; do
    [ "$which" = all ] || [ "$which" = "$target" ] || continue
    case $target in
        compact) build compact Fuzz/Targets/ReassemblerFuzzDriver.swift Fuzz/Targets/FuzzCompactReassembler.swift ;;
        bleu24)  build bleu24 Fuzz/Targets/ReassemblerFuzzDriver.swift Fuzz/Targets/FuzzBleu24Reassembler.swift ;;
        cbor)    build cbor Fuzz/Targets/FuzzCBORDecoder.swift ;;
    esac
    run "$target" "$@"
done
