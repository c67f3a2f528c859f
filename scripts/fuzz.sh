#!/usr/bin/env bash
# Builds BleuWire's libFuzzer targets and runs each for a bounded time.
#
#   scripts/fuzz.sh                      # every target, 60 s each
#   scripts/fuzz.sh cbor 600             # one target (compact | bleu24 | cbor | hci | smp), 600 s
#   scripts/fuzz.sh all 600 -jobs=1      # extra arguments go to libFuzzer
#   scripts/fuzz.sh hub 600              # a hostile client on an emulator hub beside two good ones
#                                        # (a test over real sockets, not libFuzzer: HostileClientTests)
#
# Seeds come from Fuzz/Corpus/<target>/ (committed); the growing corpus and any crashing inputs
# go to .build-fuzz/ (not committed). A crash stops the run and names the input that caused it:
# add it to the tests, fix, rerun. Not part of scripts/test.sh (CI time).
set -euo pipefail
cd "$(dirname "$0")/.."

which="${1:-all}"
seconds="${2:-60}"
shift $(( $# > 2 ? 2 : $# ))

if [ "$which" = hub ]; then
    # BLEU_HUB_FUZZ_SEED replays a run's hostile choices; BLEU_HUB_FUZZ_MODE runs one kind of attack.
    swift build --build-tests
    BLEU_HUB_FUZZ_SECONDS="$seconds" swift test --skip-build --filter HostileClientTests
    exit
fi

out=.build-fuzz
mkdir -p "$out"
mapfile -t sources < <(find Sources/BleuWire -name '*.swift' | sort)
# (Without its C target, CBleuWireCRC, BleuWire computes its CRC-32 in portable Swift.)

build() {  # build <target> <entry file...>
    local target=$1; shift
    echo "== build fuzz-$target"
    swiftc -parse-as-library -sanitize=fuzzer,address -O -g -package-name Bleu -module-name BleuWireFuzz \
        "${sources[@]}" "$@" -o "$out/fuzz-$target" 2>&1 | grep -v "Cannot export local symbol" || true
    [ -x "$out/fuzz-$target" ] || { echo "error: fuzz-$target did not build" >&2; exit 1; }
}

build_hci() {  # BleuHCI's parsers with BleuCore and BleuATT, as one module (their imports dropped; no NIO parts)
    local src="$out/src-hci"
    rm -rf "$src" && mkdir -p "$src"
    local file
    while IFS= read -r file; do
        sed -e '/^import BleuCore$/d' -e '/^import BleuATT$/d' "$file" > "$src/$(echo "$file" | tr / _)"
    done < <( (find Sources/BleuCore -name '*.swift' ! -name NameBasedUUID.swift
               find Sources/BleuATT -name '*.swift'
               find Sources/BleuHCI/H4 Sources/BleuHCI/HCI Sources/BleuHCI/L2CAP Sources/BleuHCI/ATT \
                    Sources/BleuHCI/Support -name '*.swift'
               echo Sources/BleuHCI/Host/ACLFragmentation.swift
               echo Sources/BleuHCI/Radio/ScanReport.swift
               echo Sources/BleuHCI/Radio/ScanCollector.swift
               echo Sources/BleuHCI/Security/SMPPDU.swift
               echo Sources/BleuHCI/Security/PairingFeatures.swift) | sort)
    echo "== build fuzz-hci"
    swiftc -parse-as-library -sanitize=fuzzer,address -O -g -package-name Bleu -module-name BleuHCIFuzz \
        "$src"/*.swift Fuzz/Targets/FuzzHCIParsers.swift -o "$out/fuzz-hci" 2>&1 | grep -v "Cannot export local symbol" || true
    [ -x "$out/fuzz-hci" ] || { echo "error: fuzz-hci did not build" >&2; exit 1; }
}

build_smp() {  # the pairing state machine: SwiftPM builds it (it links swift-crypto) as a library the driver loads
    echo "== build fuzz-smp"
    BLEU_FUZZ=1 swift build -c release --sanitize fuzzer --product BleuFuzz --scratch-path "$out/spm" 2>&1 \
        | grep -E "error|warning:|Compiling|Build" || true
    local library="$PWD/$out/spm/release/libBleuFuzz.so"
    [ -f "$library" ] || { echo "error: libBleuFuzz.so did not build" >&2; exit 1; }
    clang -fsanitize=fuzzer -o "$out/fuzz-smp" "$library" -Wl,-rpath,"$(dirname "$library")"
}

run() {  # run <target> [libFuzzer arguments]
    local target=$1; shift
    mkdir -p "$out/corpus/$target" "$out/artifacts/$target"
    echo "== run fuzz-$target for ${seconds}s"
    # Swift's backtracer would take the crash before libFuzzer writes the input that caused it.
    SWIFT_BACKTRACE=enable=no "$out/fuzz-$target" "$out/corpus/$target" "Fuzz/Corpus/$target" \
        -max_total_time="$seconds" -artifact_prefix="$out/artifacts/$target/" -print_final_stats=1 "$@"
}

for target in compact bleu24 cbor hci smp; do
    [ "$which" = all ] || [ "$which" = "$target" ] || continue
    case $target in
        compact) build compact Fuzz/Targets/ReassemblerFuzzDriver.swift Fuzz/Targets/FuzzCompactReassembler.swift ;;
        bleu24)  build bleu24 Fuzz/Targets/ReassemblerFuzzDriver.swift Fuzz/Targets/FuzzBleu24Reassembler.swift ;;
        cbor)    build cbor Fuzz/Targets/FuzzCBORDecoder.swift ;;
        hci)     build_hci ;;
        smp)     build_smp ;;
    esac
    run "$target" "$@"
done
