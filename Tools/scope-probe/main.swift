// SPDX-License-Identifier: Apache-2.0
// scope-probe: an "application" for the security-scope tests. Its identity is its executable's
// file name (a copy under another name is another application), or the one given with --app-id
// (SecurityScope.setApplicationIdentifier). The tests run it with XDG_DATA_HOME set to a scratch
// directory, so its signing key lives there. Every command prints one line.
//
//   scope-probe [--app-id ID] identity          `IDENTITY KEYPATH`
//   scope-probe [--app-id ID] make PATH [read-only|unscoped]
//                                               base64 of bookmark data made with .withSecurityScope
//                                               (and .securityScopeAllowOnlyReadAccess), or none
//   scope-probe [--app-id ID] resolve B64 [unscoped]
//                                               `ok PATH stale=0|1 start=true|false` or `error CODE`
//   scope-probe [--app-id ID] write B64 TEXT    resolves with scope, starts access, opens for
//                                               writing through FileHandle(forSecurityScopedURL:)
//                                               and writes TEXT: `ok` or `error CODE`
//   scope-probe [--app-id ID] set-again ID      `set=true|false` for a second setApplicationIdentifier

import BookmarkFoundation
import Foundation

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--app-id", arguments.count >= 2 {
    guard SecurityScope.setApplicationIdentifier(arguments[1]) else {
        print("error set-identity")
        exit(2)
    }
    arguments.removeFirst(2)
}

func report(_ error: Error) -> Never {
    print("error \((error as NSError).code)")
    exit(1)
}

switch arguments.first {
case "identity":
    print(SecurityScope.applicationIdentifier, SecurityScope.keyLocation?.path ?? "-")
case "make" where arguments.count >= 2:
    var options: URL.BookmarkCreationOptions = [.withSecurityScope]
    if arguments.dropFirst(2).contains("read-only") { options.insert(.securityScopeAllowOnlyReadAccess) }
    if arguments.dropFirst(2).contains("unscoped") { options = [] }
    do {
        let data = try URL(fileURLWithPath: arguments[1]).bookmarkData(
            options: options, includingResourceValuesForKeys: nil, relativeTo: nil)
        print(data.base64EncodedString())
    } catch { report(error) }
case "resolve" where arguments.count >= 2:
    guard let data = Data(base64Encoded: arguments[1]) else {
        print("error base64")
        exit(2)
    }
    let options: URL.BookmarkResolutionOptions = arguments.dropFirst(2).contains("unscoped") ? [] : [.withSecurityScope]
    do {
        var isStale = false
        let url = try URL(resolvingBookmarkData: data, options: options, relativeTo: nil, bookmarkDataIsStale: &isStale)
        let started = url.startAccessingSecurityScopedResource()
        defer { if started { url.stopAccessingSecurityScopedResource() } }
        print("ok \(url.path) stale=\(isStale ? 1 : 0) start=\(started)")
    } catch { report(error) }
case "write" where arguments.count >= 3:
    guard let data = Data(base64Encoded: arguments[1]) else {
        print("error base64")
        exit(2)
    }
    do {
        var isStale = false
        let url = try URL(
            resolvingBookmarkData: data, options: .withSecurityScope, relativeTo: nil, bookmarkDataIsStale: &isStale)
        guard url.startAccessingSecurityScopedResource() else {
            print("error not-started")
            exit(1)
        }
        defer { url.stopAccessingSecurityScopedResource() }
        let handle = try FileHandle(forSecurityScopedURL: url, access: .writing)
        try handle.write(contentsOf: Data(arguments[2].utf8))
        try handle.close()
        print("ok")
    } catch { report(error) }
case "set-again" where arguments.count >= 2:
    print("set=\(SecurityScope.setApplicationIdentifier(arguments[1]))")
default:
    print("usage: scope-probe [--app-id ID] identity|make|resolve|write|set-again …")
    exit(64)
}
