// swift-tools-version:6.0
import PackageDescription

// Ferry has no package dependencies: only what the Swift toolchain ships.
let package = Package(
    name: "Ferry",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "Ferry", targets: ["Ferry"]),
        .executable(name: "ferry", targets: ["FerryCLI"]),
        .executable(name: "ferry-bench", targets: ["FerryBench"]),
    ],
    targets: [
        .target(name: "Ferry"),
        .executableTarget(name: "FerryCLI", dependencies: ["Ferry"]),
        .executableTarget(name: "FerryBench", dependencies: ["Ferry"]),
        .target(name: "FerryTestSupport", dependencies: ["Ferry"], path: "Tests/FerryTestSupport"),
        .testTarget(name: "FerryTests", dependencies: ["Ferry", "FerryTestSupport"]),
        .testTarget(name: "FerryCLITests", dependencies: ["Ferry", "FerryCLI", "FerryTestSupport"]),
    ]
)
