// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Bleu",
    platforms: [.macOS(.v15), .iOS(.v18), .watchOS(.v11), .tvOS(.v18)],
    products: [
        .library(name: "BleuCore", targets: ["BleuCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        .target(
            name: "BleuCore",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(name: "BleuCoreTests", dependencies: ["BleuCore"]),
    ],
    swiftLanguageModes: [.v6]
)
