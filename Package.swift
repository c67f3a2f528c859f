// swift-tools-version: 6.2
import Foundation
import PackageDescription

let package = Package(
    name: "Bleu",
    platforms: [.macOS(.v15), .iOS(.v18), .watchOS(.v11), .tvOS(.v18)],
    products: [
        .library(name: "BleuCore", targets: ["BleuCore"]),
        .library(name: "BleuATT", targets: ["BleuATT"]),
        .library(name: "BleuGATT", targets: ["BleuGATT"]),
        .library(name: "BleuEmulator", targets: ["BleuEmulator"]),
        .library(name: "BleuEmulatorHub", targets: ["BleuEmulatorHub"]),
        .library(name: "BleuWire", targets: ["BleuWire"]),
        .library(name: "BleuOrchestration", targets: ["BleuOrchestration"]),
        .library(name: "Bleu", targets: ["Bleu"]),
        .library(name: "BleuTesting", targets: ["BleuTesting"]),
        .library(name: "BleuHCI", targets: ["BleuHCI"]),
        .library(name: "CoreBluetoothEmulator", targets: ["CoreBluetoothEmulator"]),
        .library(name: "BleuCoreBluetooth", targets: ["BleuCoreBluetooth"]),
        .executable(name: "bleu-bench", targets: ["bleu-bench"]),
        .executable(name: "bleu", targets: ["BleuCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "4.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // Only for `swift package generate-documentation` (DocC); no target depends on it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "BleuCore",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(name: "BleuCoreTests", dependencies: ["BleuCore", "ProcessSupport"]),
        // The one ATT/GATT protocol implementation: PDUs, attribute database, access rules,
        // server and client procedures; both backends run it.
        .target(name: "BleuATT", dependencies: ["BleuCore"]),
        .testTarget(name: "BleuATTTests", dependencies: ["BleuATT", "BleuCore"]),
        .target(name: "BleuGATT", dependencies: ["BleuCore"]),
        .testTarget(name: "BleuGATTTests", dependencies: ["BleuGATT", "BleuEmulator", "BleuOrchestration", "ProcessSupport"]),
        .target(
            name: "BleuEmulator",
            dependencies: [
                "BleuCore", "BleuATT",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        .testTarget(name: "BleuEmulatorTests", dependencies: ["BleuEmulator", "BleuEmulatorHub", "BleuATT"]),
        // The emulator across processes: a hub serving a bus over Unix-domain and TCP sockets
        // (SwiftNIO), `EmulatorBus(connectingTo:)` for its clients, and virtual HCI controllers
        // on the hub's air (H4 over TCP, spoken with BleuHCI's codecs).
        .target(
            name: "BleuEmulatorHub",
            dependencies: [
                "BleuEmulator", "BleuCore", "BleuHCI",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "BleuEmulatorHubTests",
                    dependencies: ["BleuEmulatorHub", "BleuEmulator", "BleuCore", "ProcessSupport", "Bleu", "BleuTesting", "BleuGATT",
                                   "BleuHCI"]),
        // The peripheral half of BleuEmulatorHubTests' cross-process tests, run as a child
        // process: joins a hub and hosts the example actors and a typed sensor. Not a product.
        .executableTarget(name: "bleu-hub-peer", dependencies: ["Bleu", "BleuTesting", "BleuGATT", "BleuEmulator", "BleuEmulatorHub", "BleuCore"],
                          path: "Tests/HubPeer"),
        // Imports BleuEmulator without @testable: compiles only while every knob is public.
        .testTarget(name: "BleuEmulatorAPITests", dependencies: ["BleuEmulator", "BleuCore"]),
        // CoreBluetooth's vocabulary: on Linux its value types under their own names (`CBUUID`,
        // `CBError`, the dictionary keys…); on every platform the package's one set of
        // conversions between them and BleuCore's. Both CoreBluetoothEmulator and
        // BleuCoreBluetooth use it; CoreBluetoothEmulator re-exports it.
        .target(name: "CoreBluetoothVocabulary", dependencies: ["BleuCore"]),
        // CoreBluetooth's API (`EmulatedCB…` classes and delegates) on the emulator.
        .target(name: "CoreBluetoothEmulator", dependencies: ["CoreBluetoothVocabulary", "BleuEmulator", "BleuCore", "BleuATT"]),
        .testTarget(
            name: "CoreBluetoothEmulatorTests",
            dependencies: ["CoreBluetoothEmulator", "CoreBluetoothVocabulary", "BleuEmulator", "BleuCore"],
            resources: [.copy("Fixtures")]
        ),
        // BleuCore's radio protocols implemented over CoreBluetooth's API, written once against
        // CoreBluetooth's names: the real framework on Apple platforms, CoreBluetoothEmulator
        // (under those names, see CoreBluetoothNames.swift) everywhere else.
        .target(
            name: "BleuCoreBluetooth",
            dependencies: [
                "BleuCore", "BleuATT", "CoreBluetoothVocabulary",
                .target(name: "CoreBluetoothEmulator", condition: .when(platforms: [.linux, .windows, .android])),
                // Its bus is in the API of the managers' emulator-only initialisers.
                .target(name: "BleuEmulator", condition: .when(platforms: [.linux, .windows, .android])),
            ]
        ),
        // Runs only where CoreBluetoothEmulator stands in for CoreBluetooth (its files are empty on
        // Apple platforms, where the backend drives the real radio).
        .testTarget(
            name: "BleuCoreBluetoothTests",
            dependencies: ["BleuCoreBluetooth", "CoreBluetoothEmulator", "BleuEmulator", "BleuCore", "BleuGATT",
                           "Bleu", "BleuTesting"]
        ),
        // Framing and the CBOR codec. Its one dependency is its hardware CRC-32 in C; built with
        // swiftc alone, as the fuzz targets are, it computes the CRC in portable Swift instead.
        .target(name: "BleuWire", dependencies: ["CBleuWireCRC"]),
        // CRC-32 on the processor's instructions (PCLMULQDQ on x86-64, ARMv8 CRC32 on AArch64),
        // chosen at run time: plain C, no dependency. Not a product.
        .target(name: "CBleuWireCRC"),
        // The system zlib, only as an independent CRC-32 for tests and benchmarks.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        .testTarget(name: "BleuWireTests", dependencies: ["BleuWire", "BleuCore", "CZlib", "ProcessSupport"]),
        // The fleet engine: per-device state machines, reconnection, policies, QoS scheduling.
        .target(
            name: "BleuOrchestration",
            dependencies: [
                "BleuCore", "BleuWire",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .testTarget(
            name: "BleuOrchestrationTests",
            dependencies: [
                "BleuOrchestration", "BleuEmulator",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        // The distributed actor system over BLE.
        .target(
            name: "Bleu",
            dependencies: [
                "BleuCore", "BleuWire", "BleuOrchestration",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // A connected pair of systems and example actors, for users' tests and ours.
        .target(name: "BleuTesting", dependencies: ["Bleu", "BleuCore", "BleuEmulator"]),
        .testTarget(
            name: "BleuTests",
            dependencies: [
                "Bleu", "BleuTesting", "BleuEmulator", "BleuWire", "BleuOrchestration",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        // The command-line tool, product `bleu`: `bleu demo` (subcommands in their own folders).
        // The target is not called `bleu`: `Sources/bleu` and `Sources/Bleu` would differ only
        // in case, which a Mac's file system cannot hold.
        .executableTarget(
            name: "BleuCLI",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                "Bleu", "BleuCore", "BleuEmulator", "BleuEmulatorHub", "BleuHCI", "BleuGATT",
            ]
        ),
        // The BLE host stack over HCI (H4): codecs, transports, host, L2CAP, ATT, GATT.
        .target(
            name: "BleuHCI",
            dependencies: [
                "BleuCore", "BleuATT",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "BleuHCITests",
            dependencies: [
                "BleuHCI", "BleuATT", "BleuCore", "ProcessSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // For the test targets that run child processes (the Python cross-checks, tshark, Bumble, the
        // bleu tool): every blocking read, write and wait on a thread of its own, so that a test
        // awaiting a child never blocks a thread of Swift's cooperative pool. Not a product.
        .target(name: "ProcessSupport", dependencies: ["BleuCore"], path: "Tests/ProcessSupport"),
        .testTarget(name: "ProcessSupportTests", dependencies: ["ProcessSupport"]),
        // For the test targets that run over Bumble (BLEU_PYTHON): starts scripts/bumble_link.py, two
        // of Bumble's virtual controllers on one link, and our radios on them. Not a product.
        .target(
            name: "BumbleSupport",
            dependencies: ["BleuHCI", "BleuCore", "ProcessSupport", .product(name: "Logging", package: "swift-log")],
            path: "Tests/BumbleSupport"
        ),
        // The upper layers' end-to-end scenarios on every backend (a difference is a bug in one of
        // them): the emulator's managers, BleuCoreBluetooth over CoreBluetoothEmulator, and BleuHCI
        // over Bumble's virtual controllers (with BLEU_PYTHON).
        .testTarget(
            name: "BackendConformanceTests",
            dependencies: ["Bleu", "BleuTesting", "BleuGATT", "BleuOrchestration", "BleuEmulator", "BleuCore", "BleuWire",
                           "BleuCoreBluetooth", "BleuHCI", "BumbleSupport",
                           .product(name: "Logging", package: "swift-log")]
        ),
        // Interop with independent stacks (Bumble); skipped with a printed reason without BLEU_PYTHON.
        .testTarget(
            name: "InteropTests",
            dependencies: ["BleuHCI", "BleuATT", "BleuCore", "BleuGATT", "Bleu", "BleuTesting", "BumbleSupport", "ProcessSupport"]
        ),
        .executableTarget(
            name: "bleu-bench",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "BleuCore",
                "BleuEmulator", "BleuEmulatorHub",
                "BleuWire", "CZlib",
                "BleuGATT",
                "Bleu",
                "BleuOrchestration",
                "BleuHCI",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/bleu-bench"
        ),
        // Examples/: small programs a user copies from (`swift run ThermometerActor`); scripts/test.sh
        // runs the emulator ones, and builds HCIScan (it needs a controller).
        .executableTarget(name: "ThermometerActor", dependencies: ["Bleu", "BleuEmulator"], path: "Examples/ThermometerActor"),
        .executableTarget(name: "HeartRate", dependencies: ["BleuCore", "BleuGATT", "BleuEmulator"], path: "Examples/HeartRate"),
        .executableTarget(
            name: "SensorFleet",
            dependencies: ["BleuCore", "BleuEmulator", "BleuGATT", "BleuOrchestration", "BleuWire",
                           .product(name: "Logging", package: "swift-log")],
            path: "Examples/SensorFleet"
        ),
        .executableTarget(name: "HCIScan", dependencies: ["BleuCore", "BleuHCI"], path: "Examples/HCIScan"),
        // One app written with CoreBluetooth's names: real radio on Apple platforms, the emulator elsewhere.
        .executableTarget(name: "CoreBluetoothSwitch", dependencies: ["CoreBluetoothEmulator"], path: "Examples/CoreBluetoothSwitch"),
    ],
    swiftLanguageModes: [.v6]
)

// The pairing state machine's libFuzzer target (Fuzz/SwiftPM), built by `scripts/fuzz.sh smp`
// only: it links swift-crypto, so it is built by SwiftPM with `--sanitize fuzzer`, as a dynamic
// library the fuzzer's driver loads.
if ProcessInfo.processInfo.environment["BLEU_FUZZ"] != nil {
    package.targets.append(.target(name: "BleuFuzz", dependencies: ["BleuHCI", "BleuCore"], path: "Fuzz/SwiftPM"))
    package.products.append(.library(name: "BleuFuzz", type: .dynamic, targets: ["BleuFuzz"]))
}
