// swift-tools-version:6.2
import PackageDescription

import class Foundation.ProcessInfo

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

var dependencies: [Package.Dependency] = [
    .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
    .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
]

var targets: [Target] = [
    .target(
        name: "ParleyCore",
        swiftSettings: swiftSettings
    ),
    .target(
        name: "ParleyStore",
        dependencies: [
            "ParleyCore",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
        ],
        swiftSettings: swiftSettings
    ),
    .target(
        name: "ParleyEngine",
        dependencies: [
            "ParleyCore",
            "ParleyStore",
            .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            .product(name: "Crypto", package: "swift-crypto"),
        ],
        swiftSettings: swiftSettings
    ),
    .systemLibrary(name: "CReadline", path: "Sources/CReadline"),
    .target(
        name: "ParleyShell",
        dependencies: ["ParleyCore", "ParleyEngine", "ParleyStore", "CReadline"],
        swiftSettings: swiftSettings
    ),
    .executableTarget(
        name: "parley",
        dependencies: [
            "ParleyShell", "ParleyEngine", "ParleyStore",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ],
        swiftSettings: swiftSettings
    ),
    .target(
        name: "ParleyTesting",
        dependencies: ["ParleyCore", "ParleyStore", "ParleyEngine"],
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "ParleyEngineTests",
        dependencies: [
            "ParleyCore", "ParleyEngine", "ParleyStore", "ParleyTesting",
            .product(name: "GRDB", package: "GRDB.swift"),
        ],
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "ParleyShellTests",
        dependencies: ["ParleyCore", "ParleyShell", "parley"],
        swiftSettings: swiftSettings
    ),
]

// Benchmarks pull in ordo-one/benchmark, which CI does not need: build them with
// PARLEY_BENCHMARKS=1 swift package benchmark
if ProcessInfo.processInfo.environment["PARLEY_BENCHMARKS"] != nil {
    dependencies.append(
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"])
    )
    targets.append(
        .executableTarget(
            name: "EngineBenchmarks",
            dependencies: [
                "ParleyCore", "ParleyEngine", "ParleyStore", "ParleyTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/EngineBenchmarks",
            swiftSettings: swiftSettings,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    )
}

let package = Package(
    name: "parley",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ParleyCore", targets: ["ParleyCore"]),
        .library(name: "ParleyEngine", targets: ["ParleyEngine"]),
        .executable(name: "parley", targets: ["parley"]),
    ],
    dependencies: dependencies,
    targets: targets,
    swiftLanguageModes: [.v6]
)
