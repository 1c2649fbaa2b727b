// swift-tools-version:6.1
import PackageDescription

// calpipe used as a library by a package of its own (the getting-started article of CalpipeKit's documentation).
// Built by scripts/examples with its own scratch path (.build-examples), without the Postgres and Server traits.
let package = Package(
    name: "AgendaDays",
    platforms: [.macOS(.v13)],
    // The name lets `.product(..., package: "calpipe")` find it whatever the checkout's folder is called.
    dependencies: [.package(name: "calpipe", path: "../..")],
    targets: [
        .executableTarget(name: "ics-to-days", dependencies: [.product(name: "CalpipeKit", package: "calpipe")]),
        .executableTarget(name: "custom-stage", dependencies: [.product(name: "CalpipeKit", package: "calpipe")]),
    ]
)
