// swift-tools-version:6.2
import PackageDescription

import class Foundation.ProcessInfo

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    // An import says what a file uses: members need their module imported in the file,
    // and only a `public import` lets a module's types into public declarations.
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

var dependencies: [Package.Dependency] = [
    .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
    // jwt-kit 5.7.1 needs swift-crypto 4.1 or later (3.12.3 cannot resolve with it).
    .package(url: "https://github.com/apple/swift-crypto.git", from: "4.1.0"),
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
    .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
    .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
    .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
    .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
]

var targets: [Target] = [
    .target(
        name: "ParleyCore",
        swiftSettings: swiftSettings
    ),
    // What the engine and the PostgreSQL bus share: the event bus and presence protocols.
    .target(
        name: "ParleyLive",
        dependencies: ["ParleyCore"],
        swiftSettings: swiftSettings
    ),
    // The storage protocol and what both drivers share; it knows no database.
    .target(
        name: "ParleyStore",
        dependencies: ["ParleyCore"],
        swiftSettings: swiftSettings
    ),
    // The SQLite driver: the only module that links GRDB.
    .target(
        name: "ParleySQLite",
        dependencies: [
            "ParleyCore", "ParleyStore", "ParleyLive",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
        ],
        swiftSettings: swiftSettings
    ),
    // The store and event bus on PostgreSQL, for several server nodes on one database.
    .target(
        name: "ParleyPostgres",
        dependencies: [
            "ParleyCore", "ParleyStore", "ParleyLive", "ParleyProtocol",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ],
        swiftSettings: swiftSettings
    ),
    .target(
        name: "ParleyEngine",
        dependencies: [
            "ParleyCore", "CMalloc",
            "ParleyStore", "ParleyLive",
            .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "JWTKit", package: "jwt-kit"),
        ],
        swiftSettings: swiftSettings,
        // ICU's confusable skeletons (UTS #39), as the toolchain's Foundation ships it.
        linkerSettings: [.linkedLibrary("_FoundationICU", .when(platforms: [.linux]))]
    ),
    .target(
        name: "ParleyProtocol",
        dependencies: ["ParleyCore"],
        swiftSettings: swiftSettings
    ),
    .target(
        name: "ParleyServer",
        dependencies: [
            "ParleyCore", "ParleyEngine", "ParleyLive", "ParleyProtocol", "ParleyStore",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Crypto", package: "swift-crypto"),
        ],
        swiftSettings: swiftSettings
    ),
    // The IRC gateway: IRC lines in, ChatService verbs out; engine events in, lines out.
    .target(
        name: "ParleyIRC",
        dependencies: [
            "ParleyCore", "ParleyEngine", "ParleyLive", "ParleyProtocol",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ],
        swiftSettings: swiftSettings
    ),
    .target(
        name: "ParleyClient",
        dependencies: [
            "ParleyCore", "ParleyProtocol",
            .product(name: "WSClient", package: "swift-websocket"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ],
        swiftSettings: swiftSettings
    ),
    .target(
        name: "ParleyBots",
        dependencies: [
            "ParleyCore", "ParleyProtocol",
            .product(name: "Subprocess", package: "swift-subprocess"),
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ],
        swiftSettings: swiftSettings
    ),
    .systemLibrary(name: "CReadline", path: "Sources/CReadline"),
    .systemLibrary(name: "CPNG", path: "Sources/CPNG"),
    .systemLibrary(name: "CJPEG", path: "Sources/CJPEG"),
    .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
    .target(
        name: "ParleyShell",
        dependencies: ["ParleyCore", "ParleyBots", "CReadline", "CPNG", "CJPEG"],
        swiftSettings: swiftSettings
    ),
    // The `parley` command line: the shell's launcher, `serve`, `bot`. A library, so the
    // tests run the shell in process through the same code the binary runs.
    .target(
        name: "ParleyCommands",
        dependencies: [
            "ParleyCore", "ParleyShell", "ParleyEngine", "ParleyStore", "ParleySQLite", "ParleyServer", "ParleyClient", "ParleyBots",
            "ParleyPostgres", "ParleyIRC", "ParleyProtocol", "ParleyLive",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            .product(name: "Yams", package: "Yams"),
        ],
        swiftSettings: swiftSettings
    ),
    .executableTarget(
        name: "parley",
        dependencies: ["ParleyCommands"],
        swiftSettings: swiftSettings
    ),
    // The load tool: parley-load --help in Benchmarks/LoadTool/main.swift, run by scripts/load.sh.
    .executableTarget(
        name: "parley-load",
        dependencies: [
            "ParleyCore", "ParleyClient",
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ],
        path: "Benchmarks/LoadTool",
        swiftSettings: swiftSettings
    ),
    // A Swift bot on the Bot protocol: examples/SwiftBot/main.swift.
    .executableTarget(
        name: "parley-example-bot",
        dependencies: ["ParleyBot"],
        path: "examples/SwiftBot",
        swiftSettings: swiftSettings
    ),
    // What a Swift bot's author imports: the Bot protocol and BotRunner, which runs one
    // bot against a server or on the embedded database.
    .target(
        name: "ParleyBot",
        dependencies: [
            "ParleyCore", "ParleyBots", "ParleyShell", "ParleyEngine", "ParleySQLite", "ParleyClient",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        ],
        swiftSettings: swiftSettings
    ),
    .target(
        name: "ParleyTesting",
        dependencies: [
            "ParleyCore", "ParleyStore", "ParleySQLite", "ParleyEngine", "ParleyPostgres", "CJPEG",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "CryptoExtras", package: "swift-crypto"),
        ],
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "ParleyEngineTests",
        dependencies: [
            "ParleyCore", "ParleyEngine", "ParleyLive", "ParleyStore", "ParleySQLite", "ParleyTesting", "ParleyPostgres",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "Crypto", package: "swift-crypto"),
        ],
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "ParleyServerTests",
        dependencies: [
            "ParleyCore", "ParleyEngine", "ParleyLive", "ParleyStore", "ParleySQLite", "ParleyServer", "ParleyClient", "ParleyProtocol",
            "ParleyTesting",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "WSClient", package: "swift-websocket"),
            .product(name: "WSCore", package: "swift-websocket"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ],
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "ParleyIRCTests",
        dependencies: ["ParleyCore", "ParleyIRC"],
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "ParleyBotsTests",
        dependencies: ["ParleyCore", "ParleyEngine", "ParleyStore", "ParleySQLite", "ParleyBots", "ParleyTesting"],
        exclude: ["Plugins"],
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "ParleyShellTests",
        dependencies: [
            "ParleyCore", "ParleyEngine", "ParleyShell", "ParleyTesting", "ParleyCommands", "parley",
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "Crypto", package: "swift-crypto"),
        ],
        exclude: ["Plugins"],
        swiftSettings: swiftSettings
    ),
]

// Benchmarks pull in ordo-one/benchmark, which CI does not need: build them with
// PARLEY_BENCHMARKS=1 swift package benchmark --target EngineBenchmarks
// (without --target the plugin also tries to run parley-load, whose folder is under
// Benchmarks/, as a benchmark, and the command fails after the engine's results)
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
        .library(name: "ParleyBot", targets: ["ParleyBot"]),
        .executable(name: "parley", targets: ["parley"]),
    ],
    dependencies: dependencies,
    targets: targets,
    swiftLanguageModes: [.v6]
)
