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
        .executable(name: "ferry-torture", targets: ["FerryTorture"]),
    ],
    targets: [
        .target(name: "Ferry"),
        .executableTarget(name: "FerryCLI", dependencies: ["Ferry"]),
        .executableTarget(name: "FerryBench", dependencies: ["Ferry"]),
        // Writer and syncer processes that crash tests SIGKILL at random moments.
        .executableTarget(name: "FerryTorture", dependencies: ["Ferry"]),
        .target(name: "FerryTestSupport", dependencies: ["Ferry"], path: "Tests/FerryTestSupport"),
        .testTarget(name: "FerryTests", dependencies: ["Ferry", "FerryTestSupport", "FerryTorture"]),
        .testTarget(name: "FerryCLITests", dependencies: ["Ferry", "FerryCLI", "FerryTestSupport"]),
    ]
)
