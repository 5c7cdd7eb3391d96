// SPDX-License-Identifier: Apache-2.0

extension Resolution: CustomStringConvertible {
    /// One line for logs: the path, how it was matched and, when stale, what changed; for example
    /// `/home/me/notes.txt (matched by handle; stale: path, name)`. (The derived description
    /// printed the path as a list of byte values, and every volume and identity field.)
    public var description: String {
        var parts = ["matched by \(matchedBy.rawValue)"]
        if isStale { parts.append("stale: " + Change.ordered(changes).map(\.rawValue).joined(separator: ", ")) }
        if isInTrash { parts.append("in the Trash") }
        return "\(path.string) (\(parts.joined(separator: "; ")))"
    }
}

extension StoredRefresh: CustomStringConvertible {
    /// A summary for logs: how many stored bookmarks resolved, failed, were rewritten and could
    /// not be; for example `3000 bookmarks: 2821 resolved, 179 failed; 612 rewritten`. (The
    /// derived description printed every result in full: megabytes for a large library.)
    public var description: String {
        let resolved = results.filter { if case .success = $0 { return true } else { return false } }.count
        var text = "\(results.count) bookmarks: \(resolved) resolved, \(results.count - resolved) failed; \(refreshed.count) rewritten"
        if !notRefreshed.isEmpty { text += ", \(notRefreshed.count) stale but not refreshed" }
        return text
    }
}
