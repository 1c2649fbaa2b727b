// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "calpipe",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "calpipe", targets: ["calpipe"]),
        .executable(name: "calpipe-bench", targets: ["calpipe-bench"]),
        .library(name: "CalpipeKit", targets: ["CalpipeKit"]),
    ],
    // Heavy server dependencies stay out of a newcomer's first build (`swift run calpipe ...`): the PostgreSQL sink
    // (postgres-nio) and `calpipe serve` (Hummingbird) are compiled into the CLI only with their trait,
    // `swift build --traits Postgres,Server`. scripts/test enables both, so the tests cover them.
    traits: [
        .trait(name: "Postgres", description: "The postgres sink (PostgresNIO)."),
        .trait(name: "Server", description: "calpipe serve (Hummingbird)."),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // SHA-256 of inputs and events for incremental runs (issue 18).
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // The postgres sink (trait Postgres only; docs/scaling.md says why PostgresNIO and not libpq).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // `calpipe serve` (trait Server; docs/publishing.md says why Hummingbird): HTTP, SIGTERM, /metrics, gzip.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        // `swift package generate-documentation` (scripts/docs): CalpipeKit's DocC catalog, checked in CI.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // System libraries. Only CalSQLite imports CSQLite and only CalXML imports CLibXML.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CLibXML",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .target(name: "CalSQLite", dependencies: ["CSQLite"]),
        .target(name: "CalXML", dependencies: ["CLibXML"]),

        // SHA-256, the one hash (HTTP cache bodies, source fingerprints, event content hashes): a small value over
        // swift-crypto's, which uses the CPU's SHA instructions (every event of a feed is hashed on every run).
        .target(name: "CalHash", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "Pipeline", dependencies: ["CalHash"]),
        // Importers may use the HTTP client (any method, shared cache and host turns), not only the GET-to-file RemoteFetcher.
        .target(name: "Importers", dependencies: ["Pipeline", "CalXML", "Fetch"]),
        .target(name: "Exporters", dependencies: ["Pipeline", "CalSQLite"]),
        .target(name: "Fetch", dependencies: ["Pipeline", "CalSQLite", "CalHash"]),
        .target(name: "Enrichers", dependencies: ["Pipeline", "Fetch"]),
        // `exec` plugins: a source, a stage and a sink that run a program and speak JSON lines with it.
        .target(name: "Exec", dependencies: ["Pipeline", "Importers", "Exporters"]),
        // Calendars over the services' own APIs: Google Calendar and Microsoft Graph (issue 26).
        .target(name: "CloudCalendars", dependencies: ["Pipeline", "Fetch"]),
        // The CalDAV client, source and sink (issue 26): over Fetch's client and CalXML, no other dependency.
        .target(name: "CalDAV", dependencies: ["Pipeline", "CalXML", "Fetch", "Importers", "Exporters", "CalHash"]),
        // The library: every standard plugin in one registry, re-exporting Pipeline's public API.
        .target(name: "CalpipeKit", dependencies: [
            "Pipeline", "Importers", "Exporters", "Enrichers", "Fetch", "CloudCalendars", "CalDAV", "Exec",
            .target(name: "CalPostgres", condition: .when(traits: ["Postgres"])),
        ]),
        // The postgres sink (docs/postgres.md). Its files are `#if Postgres` and PostgresNIO is linked only with the
        // trait, so a plain `swift build` compiles an empty module and never builds swift-nio.
        .target(name: "CalPostgres", dependencies: [
            "Pipeline", "Exporters", "CalSQLite",
            .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
        ]),
        // `calpipe serve`: runs pipelines on their refresh intervals and serves their outputs (trait Server only).
        .target(
            name: "Serve",
            dependencies: [
                "CalpipeKit", "Pipeline", "Exporters", "CalHash",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ]
        ),
        .executableTarget(
            name: "calpipe",
            dependencies: [
                "CalpipeKit", "Pipeline", "Importers", "Exporters", "Enrichers", "Fetch",
                .target(name: "Serve", condition: .when(traits: ["Server"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .executableTarget(
            name: "calpipe-bench",
            dependencies: ["CalpipeKit", "Exporters", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/calpipe-bench"
        ),

        .testTarget(
            name: "PipelineTests",
            dependencies: ["CalpipeKit", "Pipeline", "Importers", "Exporters", "CalSQLite", "CalXML", "CalHash", "calpipe"],
            path: "Tests/PipelineTests"
        ),
        .testTarget(
            name: "ForecastTests",
            dependencies: ["CalpipeKit", "Pipeline", "Fetch", "Enrichers", "CalSQLite", "CalHash", "Importers", "Exporters", "calpipe"],
            path: "Tests/ForecastTests"
        ),
        .testTarget(
            name: "SQLiteTests",
            dependencies: ["CalSQLite", "Pipeline", "Exporters"],
            path: "Tests/SQLiteTests"
        ),
        // `calpipe serve` started for real (the binary built with the Server trait) against upstream feeds on loopback.
        .testTarget(name: "ServeTests", dependencies: ["calpipe"], path: "Tests/ServeTests"),
        .testTarget(name: "RecurrenceTests", dependencies: ["CalpipeKit", "Pipeline", "Importers"], path: "Tests/RecurrenceTests"),
        .testTarget(
            name: "ICSTests",
            dependencies: ["CalpipeKit", "Pipeline", "Importers", "Exporters"],
            path: "Tests/ICSTests"
        ),
        .testTarget(
            name: "HTMLTests",
            dependencies: ["CalpipeKit", "Pipeline", "Importers", "Exporters", "Enrichers", "calpipe"],
            path: "Tests/HTMLTests",
            exclude: ["check_page.py", "png_stats.py", "agenda_pty.py"]
        ),
        .testTarget(
            name: "XMLTests",
            dependencies: ["CalpipeKit", "Pipeline", "Importers", "Exporters", "CalXML"],
            path: "Tests/XMLTests"
        ),
        // Uses only what `import CalpipeKit` gives: a custom source and sink run through the public API. Its files
        // import CalpipeKit alone; Pipeline and Fetch are listed too so that an incremental build recompiles the tests when
        // their interfaces change (CalpipeKit re-exports them, and its own module file may not change, which left
        // a stale build reading moved fields: garbage counts in CustomPluginTests).
        .testTarget(name: "CloudCalendarTests", dependencies: ["CalpipeKit", "Pipeline", "CalSQLite"], path: "Tests/CloudCalendarTests"),
        .testTarget(name: "CalDAVTests", dependencies: ["CalpipeKit", "Pipeline", "CalDAV", "CalSQLite", "CalHash", "calpipe"], path: "Tests/CalDAVTests"),
        .testTarget(
            name: "PostgresTests",
            dependencies: ["CalpipeKit", "Pipeline", "Importers", "Exporters", "CalSQLite", "calpipe",
                           .target(name: "CalPostgres", condition: .when(traits: ["Postgres"]))],
            path: "Tests/PostgresTests"
        ),
        .testTarget(name: "LibraryTests", dependencies: ["CalpipeKit", "Pipeline", "Fetch"], path: "Tests/LibraryTests"),
    ]
)

// The libFuzzer harness (scripts/fuzz), only when CALPIPE_FUZZ is set: it has no main of its own (libFuzzer's is
// linked by `--sanitize=fuzzer`), so ordinary builds must not see it.
if Context.environment["CALPIPE_FUZZ"] != nil {
    package.targets.append(.executableTarget(
        name: "calpipe-fuzz",
        dependencies: ["CalpipeKit", "Pipeline", "Importers", "Exporters", "Enrichers"],
        path: "Fuzz/calpipe-fuzz"
    ))
}
