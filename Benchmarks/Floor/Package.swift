// swift-tools-version:6.0
// The floor under issue 37's targets: as little of a chat server as the bench's IRC driver
// needs, on Swift NIO, with and without a SQLite commit before each acknowledgement
// (docs/performance.md, "The floor"). A package of its own: nothing of Parley's is in it,
// and Parley's build does not build it. `scripts/floor.sh` builds and runs it.
import PackageDescription

let package = Package(
    name: "Floor",
    dependencies: [.package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3")],
    targets: [
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        .executableTarget(
            name: "floor",
            dependencies: [
                "CSQLite",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Sources/Floor",
            swiftSettings: [.swiftLanguageMode(.v5)]),
    ]
)
