// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "calpipe",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "calpipe", targets: ["calpipe"]),
        .executable(name: "calpipe-bench", targets: ["calpipe-bench"]),
        .library(name: "Pipeline", targets: ["Pipeline"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // SHA-256 of inputs and events for incremental runs (issue 18).
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
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

        .target(name: "Pipeline", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "Importers", dependencies: ["Pipeline", "CalXML"]),
        .target(name: "Exporters", dependencies: ["Pipeline", "CalSQLite"]),
        .target(name: "Fetch", dependencies: ["Pipeline", "CalSQLite"]),
        .target(name: "Enrichers", dependencies: ["Pipeline", "Fetch"]),
        .executableTarget(
            name: "calpipe",
            dependencies: [
                "Pipeline", "Importers", "Exporters", "Enrichers", "Fetch",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .executableTarget(
            name: "calpipe-bench",
            dependencies: ["Pipeline", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/calpipe-bench"
        ),

        .testTarget(
            name: "PipelineTests",
            dependencies: ["Pipeline", "Importers", "Exporters", "CalSQLite", "CalXML", "calpipe"],
            path: "Tests/PipelineTests"
        ),
        .testTarget(
            name: "ForecastTests",
            dependencies: ["Pipeline", "Fetch", "Enrichers", "CalSQLite", "Importers", "Exporters"],
            path: "Tests/ForecastTests"
        ),
        .testTarget(
            name: "SQLiteTests",
            dependencies: ["CalSQLite", "Pipeline", "Exporters"],
            path: "Tests/SQLiteTests"
        ),
        .testTarget(name: "RecurrenceTests", dependencies: ["Pipeline", "Importers"], path: "Tests/RecurrenceTests"),
        .testTarget(
            name: "ICSTests",
            dependencies: ["Pipeline", "Importers", "Exporters"],
            path: "Tests/ICSTests"
        ),
        .testTarget(
            name: "XMLTests",
            dependencies: ["Pipeline", "Importers", "Exporters", "CalXML"],
            path: "Tests/XMLTests"
        ),
    ]
)
