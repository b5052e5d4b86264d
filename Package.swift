// swift-tools-version:6.0
import PackageDescription

// Ferry has no package dependencies: only what the Swift toolchain ships.
let package = Package(
    name: "Ferry",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        // `Ferry` is the store, sync engine and server; `FerryURLSession` adds the HTTP client
        // for syncing with remote peers (it links FoundationNetworking, which `Ferry` does not).
        .library(name: "Ferry", targets: ["Ferry", "FerryURLSession"]),
        .executable(name: "ferry", targets: ["FerryCLI"]),
        .executable(name: "ferry-remote", targets: ["FerryRemoteCLI"]),
        .executable(name: "ferry-bench", targets: ["FerryBench"]),
        .executable(name: "ferry-torture", targets: ["FerryTorture"]),
    ],
    targets: [
        // SHA-256 with the x86 SHA instructions, where the processor has them (C: Swift has no
        // intrinsics for them); the portable Swift rounds run everywhere else.
        .target(name: "CFerrySHA"),
        // ChaCha20 eight blocks at a time with AVX2, where the processor has it (C: Swift has no
        // intrinsics and compiles for SSE2), and Poly1305's block loop on 128-bit integers; the
        // Swift paths run everywhere else.
        .target(name: "CFerryChaCha"),
        // epoll's header, which Swift's Glibc module leaves out (the change feed's one thread
        // waits on every subscriber with it).
        .systemLibrary(name: "CFerryEpoll"),
        .target(name: "Ferry", dependencies: ["CFerrySHA", "CFerryChaCha", "CFerryEpoll"]),
        .target(name: "FerryURLSession", dependencies: ["Ferry"]),
        // Every command of the command line, shared by the two executables below.
        .target(name: "FerryCommandLine", dependencies: ["Ferry"]),
        // `ferry` starts without FoundationNetworking and hands syncs with http(s) peers to
        // `ferry-remote`; depending on it makes `swift run ferry` build it too (nothing of it
        // is linked into `ferry`).
        .executableTarget(name: "FerryCLI", dependencies: ["Ferry", "FerryCommandLine", "FerryRemoteCLI"]),
        // Compiles the client through a link to FerryURLSession's one file rather than depending on
        // that target: SwiftPM would link an executable dependency's library targets into `ferry`.
        .executableTarget(name: "FerryRemoteCLI", dependencies: ["Ferry", "FerryCommandLine"]),
        .executableTarget(name: "FerryBench", dependencies: ["Ferry", "FerryURLSession"]),
        // Writer and syncer processes that crash tests SIGKILL at random moments.
        .executableTarget(name: "FerryTorture", dependencies: ["Ferry"]),
        .target(name: "FerryTestSupport", dependencies: ["Ferry"], path: "Tests/FerryTestSupport"),
        .testTarget(name: "FerryTests", dependencies: ["Ferry", "FerryURLSession", "FerryTestSupport", "FerryTorture"]),
        .testTarget(
            name: "FerryCLITests", dependencies: ["Ferry", "FerryURLSession", "FerryCommandLine", "FerryCLI", "FerryTestSupport"]),
    ]
)
