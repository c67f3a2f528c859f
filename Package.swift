// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Bleu",
    platforms: [.macOS(.v15), .iOS(.v18), .watchOS(.v11), .tvOS(.v18)],
    products: [
        .library(name: "BleuCore", targets: ["BleuCore"]),
        .library(name: "BleuGATT", targets: ["BleuGATT"]),
        .library(name: "BleuEmulator", targets: ["BleuEmulator"]),
        .library(name: "BleuWire", targets: ["BleuWire"]),
        .library(name: "BleuOrchestration", targets: ["BleuOrchestration"]),
        .executable(name: "bleu-bench", targets: ["bleu-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
    ],
    targets: [
        .target(
            name: "BleuCore",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(name: "BleuCoreTests", dependencies: ["BleuCore"]),
        .target(name: "BleuGATT", dependencies: ["BleuCore"]),
        .testTarget(name: "BleuGATTTests", dependencies: ["BleuGATT"]),
        .target(
            name: "BleuEmulator",
            dependencies: [
                "BleuCore",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        .testTarget(name: "BleuEmulatorTests", dependencies: ["BleuEmulator"]),
        // Framing and the CBOR codec; no dependencies, so the fuzz targets build it with swiftc alone.
        .target(name: "BleuWire"),
        // The system zlib, only as an independent CRC-32 for tests and benchmarks.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        .testTarget(name: "BleuWireTests", dependencies: ["BleuWire", "BleuCore", "CZlib"]),
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
        .executableTarget(
            name: "bleu-bench",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "BleuCore",
                "BleuEmulator",
                "BleuWire", "CZlib",
                "BleuOrchestration",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/bleu-bench"
        ),
    ],
    swiftLanguageModes: [.v6]
)
