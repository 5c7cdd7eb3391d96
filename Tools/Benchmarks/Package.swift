// swift-tools-version:6.1
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

/// The benchmark tool (issue 7), kept in its own package so the root's `swift build` and
/// `swift test` never compile it. Run it through `Tools/bench-smoke` or as Docs/PERFORMANCE.md says.
let package = Package(
    name: "BookmarkBenchmarks",
    dependencies: [
        .package(name: "swift-bookmarks", path: "../.."),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        // The baselines: bare syscalls, in C, so no Swift overhead counts against the floor.
        .target(name: "CBenchBaseline", cSettings: [.define("_GNU_SOURCE")]),
        .executableTarget(
            name: "BookmarkBenchmarks",
            dependencies: [
                "CBenchBaseline",
                .product(name: "BookmarkKit", package: "swift-bookmarks"),
                .product(name: "BookmarkFoundation", package: "swift-bookmarks"),
                .product(name: "Documents", package: "swift-bookmarks"),
                .product(name: "BookmarkCatalog", package: "swift-bookmarks"),
                .product(name: "BookmarkFormat", package: "swift-bookmarks"),
                .product(name: "FileIdentity", package: "swift-bookmarks"),
                .product(name: "SecureFiles", package: "swift-bookmarks"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
