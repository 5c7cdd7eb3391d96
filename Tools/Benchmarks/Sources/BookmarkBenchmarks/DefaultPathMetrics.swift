// SPDX-License-Identifier: Apache-2.0
import BookmarkFoundation
import BookmarkKit
import CBenchBaseline
import FileIdentity
import Foundation
import SystemPackage

/// The calls apps make, as they make them: no volume table passed (the process's shared table),
/// and Apple's API through BookmarkFoundation.
extension Bench {
    mutating func defaultPaths() throws -> [MetricResult] {
        let path = full(try deepProjectFile().file)
        var inode: UInt64 = 0
        let statx = { _ = cbb_statx(path, &inode) }
        let statxHandle = { _ = cbb_statx_handle(path) }

        let bookmark = try Bookmark.create(for: FilePath(path))
        guard try bookmark.resolve().matchedBy == .path else { throw BenchError("unmoved file not matched by path") }
        let resolve = try measure.compare(ours: { _ = try bookmark.resolve() }, baseline: statx)
        let everyStep = ResolutionOptions(useMemo: false)
        let resolveSteps = try measure.compare(ours: { _ = try bookmark.resolve(everyStep) }, baseline: statx)
        let oldDefault = try measure.compare(
            ours: { _ = try bookmark.resolve(volumes: try MountedVolumes()) }, baseline: statx)
        let create = try measure.compare(ours: { _ = try Bookmark.create(for: FilePath(path)) }, baseline: statxHandle)

        let url = URL(fileURLWithPath: path)
        let data = try url.bookmarkData()
        var isStale = false
        guard try URL(resolvingBookmarkData: data, bookmarkDataIsStale: &isStale).path == path else {
            throw BenchError("URL(resolvingBookmarkData:) did not find the unmoved file")
        }
        let appleResolve = try measure.compare(
            ours: { _ = try URL(resolvingBookmarkData: data, bookmarkDataIsStale: &isStale) }, baseline: statx)
        let appleCreate = try measure.compare(ours: { _ = try url.bookmarkData() }, baseline: statxHandle)
        // Another file each call (the creation row's set, ancestor cache warm): every creation's
        // bytes are written, none is the memo's.
        let urls = creationSet().map { URL(fileURLWithPath: $0) }
        guard !urls.isEmpty else { throw BenchError("no files to bookmark") }
        for _ in 0..<2 { for each in urls { _ = try each.bookmarkData() } }
        var ours = 0
        var base = 0
        let appleCreateEach = try measure.compare(
            ours: {
                ours = (ours + 1) % urls.count
                _ = try urls[ours].bookmarkData()
            },
            baseline: {
                base = (base + 1) % urls.count
                _ = cbb_statx_handle(urls[base].path)
            })

        // Security scope: the signing key in a scratch directory, not the user's home.
        setenv("XDG_DATA_HOME", NSTemporaryDirectory() + "/bookmark-bench-keys-\(getpid())", 1)
        let scopedData = try url.bookmarkData(options: .withSecurityScope)
        let scoped = try URL(resolvingBookmarkData: scopedData, options: .withSecurityScope, bookmarkDataIsStale: &isStale)
        guard scoped.path == path, scoped.startAccessingSecurityScopedResource() else {
            throw BenchError("scoped resolution did not find the file or start")
        }
        scoped.stopAccessingSecurityScopedResource()
        let scopedResolve = try measure.compare(
            ours: { _ = try URL(resolvingBookmarkData: scopedData, options: .withSecurityScope, bookmarkDataIsStale: &isStale) },
            baseline: statx)
        let startStop = try measure.compare(
            ours: {
                _ = scoped.startAccessingSecurityScopedResource()
                scoped.stopAccessingSecurityScopedResource()
            }, baseline: statx)

        let reference = try FileReferenceURL(for: FilePath(path))
        let referenceResolve = try measure.compare(ours: { _ = try reference.resolve() }, baseline: statx)

        return [
            MetricResult("default path: Bookmark.resolve(), unmoved", baseline: "statx", target: .ratioAtMost(3), resolve,
                note: "no table given: the shared table, one poll per call; the bookmark's memo, one statx"),
            MetricResult("↳ every step (useMemo: false), as a first resolution", baseline: "statx", target: .none,
                resolveSteps, note: "volume by UUID, path re-rooted, statx, result built"),
            MetricResult("↳ with a new MountedVolumes() each call (0.1's default)", baseline: "statx", target: .none,
                oldDefault, note: "reads and parses /proc/self/mountinfo every call"),
            MetricResult("default path: Bookmark.create(for:)", baseline: "statx + name_to_handle_at",
                target: .ratioAtMost(3), create, note: "one file, ancestor cache warm"),
            MetricResult("default path: URL(resolvingBookmarkData:), unmoved", baseline: "statx", target: .ratioAtMost(3),
                appleResolve, note: "BookmarkFoundation: decode, resolve, make the URL"),
            MetricResult("default path: url.bookmarkData()", baseline: "statx + name_to_handle_at",
                target: .ratioAtMost(3), appleCreate,
                note: "BookmarkFoundation: create and encode; the same file each call (its bytes are the memo's)"),
            MetricResult("↳ another file each call", baseline: "statx + name_to_handle_at", target: .none, appleCreateEach,
                note: "the creation row's files in turn: every bookmark's bytes written"),
            MetricResult("URL(resolvingBookmarkData:options: .withSecurityScope), unmoved", baseline: "statx", target: .none,
                scopedResolve, note: "verify the signature (decode, re-encode, HMAC-SHA256), open the object, register the URL"),
            MetricResult("start + stopAccessingSecurityScopedResource()", baseline: "statx", target: .none, startStop,
                note: "two registry look-ups under one lock each"),
            MetricResult("default path: file-reference URL, unmoved", baseline: "statx", target: .ratioAtMost(3),
                referenceResolve, note: "FileReferenceURL.resolve(): the process's path cache, verified"),
        ]
    }
}
