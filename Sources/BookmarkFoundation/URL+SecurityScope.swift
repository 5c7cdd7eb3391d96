// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import Foundation

    extension URL {
        /// Starts access to the object of a URL that came from resolving security-scoped bookmark
        /// data: Apple's `URL.startAccessingSecurityScopedResource()` on Linux.
        ///
        /// Returns `true` (and counts the call) for a URL that
        /// `URL(resolvingBookmarkData:options: .withSecurityScope, …)` returned in this process,
        /// after checking the data's signature, and `false` for any other URL. `URL` is a value
        /// with no identity, so "that URL" is its absolute string: any `URL` with the same string
        /// (`URL(fileURLWithPath:)` of the resolved path, say) returns `true` as well and shares
        /// its count; the same file spelled otherwise (another path to it) does not.
        /// Balance each `true` with ``stopAccessingSecurityScopedResource()``. While access is
        /// started, `SecurityScope.open(_:for:)` opens the object, enforcing a read-only scope. See
        /// `SecurityScope` for what a scope means on Linux and the registry's cost and bound.
        ///
        /// - Returns: Whether the URL is security-scoped (its access is now started).
        public func startAccessingSecurityScopedResource() -> Bool {
            ScopeRegistry.shared.start(self)
        }

        /// Balances one ``startAccessingSecurityScopedResource()``: Apple's
        /// `URL.stopAccessingSecurityScopedResource()` on Linux. Harmless for a URL that is not
        /// scoped or has no start to balance.
        public func stopAccessingSecurityScopedResource() {
            ScopeRegistry.shared.stop(self)
        }
    }

    extension NSURL {
        /// Apple's `NSURL.startAccessingSecurityScopedResource()`: the same as the `URL` method
        /// (`URL.startAccessingSecurityScopedResource()`).
        public func startAccessingSecurityScopedResource() -> Bool {
            ScopeRegistry.shared.start(self as URL)
        }

        /// Apple's `NSURL.stopAccessingSecurityScopedResource()`: the same as the `URL` method.
        public func stopAccessingSecurityScopedResource() {
            ScopeRegistry.shared.stop(self as URL)
        }
    }
#endif
