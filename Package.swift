// swift-tools-version:6.1
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

/// swift-bookmarks: durable references to files on Linux.
/// The layering is described in ../shared/ARCHITECTURE.md and Docs/IDENTITY.md.
let package = Package(
    name: "swift-bookmarks",
    products: [
        .library(name: "SecureFiles", targets: ["SecureFiles"]),
        .library(name: "FileIdentity", targets: ["FileIdentity"]),
        .library(name: "BookmarkFormat", targets: ["BookmarkFormat"]),
        .library(name: "BookmarkKit", targets: ["BookmarkKit"]),
        .library(name: "Documents", targets: ["Documents"]),
        .library(name: "BookmarkFoundation", targets: ["BookmarkFoundation"]),
        .library(name: "BookmarkCatalog", targets: ["BookmarkCatalog"]),
        .executable(name: "bookmark", targets: ["bookmark"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // Volume catalogs: SQLite through GRDB (system libsqlite3, Tools/install-deps).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Documentation only: `swift package generate-documentation` (Tools/docs); links nothing.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: C layer
        .target(
            name: "CLinuxShims",
            cSettings: [.define("_GNU_SOURCE")]
        ),
        .systemLibrary(
            name: "CBlkid",
            pkgConfig: "blkid",
            providers: [.apt(["libblkid-dev"])]
        ),
        // SHA-256 and HMAC-SHA256 from the system's OpenSSL (Sources/Digests says why not swift-crypto).
        .systemLibrary(
            name: "COpenSSLCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(name: "Digests", dependencies: ["COpenSSLCrypto"]),

        // MARK: Libraries
        .target(
            name: "SecureFiles",
            dependencies: [
                "CLinuxShims",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            cSettings: [.define("_GNU_SOURCE")]
        ),
        .target(
            name: "FileIdentity",
            dependencies: [
                "SecureFiles",
                "CBlkid",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(name: "BookmarkFormat"),
        .target(
            name: "BookmarkKit",
            dependencies: [
                "BookmarkFormat",
                "FileIdentity",
                "SecureFiles",
                .product(name: "SystemPackage", package: "swift-system"),
                "Digests",
            ]
        ),

        // Apple's URL bookmark API on Linux (everything inside is `#if os(Linux)`).
        .target(
            name: "Documents",
            dependencies: [
                "BookmarkKit",
                "SecureFiles",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(
            name: "BookmarkFoundation",
            dependencies: [
                "Documents",
                "BookmarkKit",
                "BookmarkFormat",
                "SecureFiles",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),

        // Volume catalogs: what is on every drive, in SQLite, with file identity (Docs/CATALOG.md).
        .target(
            name: "BookmarkCatalog",
            dependencies: [
                "BookmarkKit",
                "FileIdentity",
                "SecureFiles",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The C API, for the scan's per-entry statements (SQLiteBinding.swift).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "SystemPackage", package: "swift-system"),
                "Digests",
            ]
        ),

        // MARK: Tools
        // Every module Tools/bookmark imports is declared here (Tools/check-imports checks every
        // target), and MemberImportVisibility makes each file import the modules whose members it
        // uses. Bookmarks go through BookmarkKit; FileIdentity is imported for `bookmark id` and
        // `bookmark volumes`, which are about that layer, and for the volume of a resolution;
        // SecureFiles for path bytes, FileSystemError's exit codes and reading SOURCE.
        .executableTarget(
            name: "bookmark",
            dependencies: [
                "BookmarkCatalog",
                "BookmarkKit",
                "Documents",
                "BookmarkFormat",
                "FileIdentity",
                "SecureFiles",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "Tools/bookmark",
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")],
            plugins: ["BuildStamp"]
        ),
        // Writes the git commit into `bookmark --version` before each build (Tools/stamp-build).
        .plugin(name: "BuildStamp", capability: .buildTool(), path: "Plugins/BuildStamp"),
        .executableTarget(
            name: "secure-probe",
            dependencies: ["SecureFiles", .product(name: "SystemPackage", package: "swift-system")],
            path: "Tools/secure-probe"
        ),
        .executableTarget(
            name: "create-probe",
            dependencies: [
                "BookmarkKit", "FileIdentity", "SecureFiles", .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "Tools/create-probe"
        ),
        .executableTarget(
            name: "scope-probe",
            dependencies: ["BookmarkFoundation"],
            path: "Tools/scope-probe"
        ),
        .executableTarget(
            name: "wrapper-probe",
            dependencies: ["Documents", "SecureFiles", .product(name: "SystemPackage", package: "swift-system")],
            path: "Tools/wrapper-probe"
        ),
        .executableTarget(
            name: "FuzzBookmark",
            dependencies: ["BookmarkFormat", "Documents"],
            path: "Tools/FuzzBookmark",
            exclude: ["seeds"]
        ),

        // MARK: Tests
        .target(
            name: "VolumeFixtures",
            dependencies: ["CLinuxShims", .product(name: "SystemPackage", package: "swift-system")],
            path: "Tests/VolumeFixtures",
            cSettings: [.define("_GNU_SOURCE")]
        ),
        .testTarget(
            name: "SecureFilesTests",
            dependencies: [
                "SecureFiles", "CLinuxShims", "VolumeFixtures", "secure-probe",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            exclude: ["Data"]
        ),
        .testTarget(
            name: "FileIdentityTests",
            dependencies: [
                "FileIdentity", "SecureFiles", "VolumeFixtures",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(
            name: "BookmarkKitTests",
            dependencies: [
                "BookmarkKit", "BookmarkFormat", "FileIdentity", "SecureFiles", "VolumeFixtures", "create-probe",
                "CLinuxShims", "Digests",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(
            name: "BookmarkFormatTests",
            dependencies: [
                "BookmarkFormat", "VolumeFixtures",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            exclude: ["Interop/mac_alias_peer.py"]
        ),
        .testTarget(
            name: "BookmarkCLITests",
            dependencies: ["bookmark", "VolumeFixtures", "BookmarkFormat"]
        ),
        .testTarget(
            name: "DocumentsTests",
            dependencies: [
                "Documents", "BookmarkFoundation", "BookmarkKit", "SecureFiles", "VolumeFixtures", "wrapper-probe",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(
            name: "BookmarkCatalogTests",
            dependencies: [
                "BookmarkCatalog", "BookmarkKit", "FileIdentity", "SecureFiles", "VolumeFixtures", "bookmark",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            // The headless-Chromium driver the export tests run (Python, standard library only).
            exclude: ["Browser"]
        ),
        .testTarget(
            name: "BookmarkFoundationTests",
            dependencies: ["BookmarkFoundation", "BookmarkFormat", "BookmarkKit", "SecureFiles", "VolumeFixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Tools/sanitizers builds each sanitizer's test binary with only the test targets its run
// filters to (comma-separated names in BOOKMARK_TEST_TARGETS): compiling all of them for a run
// of a few suites was most of a sanitizer step's time. Unset, as everywhere else, every test
// target is built. (SwiftPM keys its manifest cache on the environment, so the variable's value
// cannot leak into another build.)
if let only = Context.environment["BOOKMARK_TEST_TARGETS"] {
    let wanted = Set(only.split(separator: ",").map(String.init))
    package.targets.removeAll { $0.type == .test && !wanted.contains($0.name) }
}
