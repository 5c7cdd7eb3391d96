// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import Foundation
    import SecureFiles

    /// The URLs that came from security-scoped resolutions in this process, and how many starts of
    /// each are not yet balanced by a stop. See `SecurityScope`, "The registry", for its bound.
    final class ScopeRegistry: Sendable {
        static let shared = ScopeRegistry(capacity: SecurityScope.registryCapacity)

        /// What a scoped resolution found: the object (to open it as that object later) and its
        /// scope.
        struct Entry: Sendable {
            /// The path bytes the resolution returned.
            var path: [UInt8]
            var device: DeviceNumber
            var inode: UInt64
            /// `.securityScopeAllowOnlyReadAccess` was recorded at creation.
            var readOnly: Bool
            /// Starts not yet balanced by a stop.
            var starts: Int
            /// When it was registered (for dropping the oldest idle entry).
            var serial: UInt64
        }

        private struct State {
            var entries: [String: Entry] = [:]
            var nextSerial: UInt64 = 0
        }

        let capacity: Int
        private let state = Locked(State())

        init(capacity: Int) { self.capacity = capacity }

        /// URLs are equal as `URL`s when their strings are: the key is the absolute string.
        private static func key(_ url: URL) -> String { url.absoluteString }

        /// Registers `url` as scoped (again: a new resolution of the same URL keeps its count and
        /// takes the new object and scope).
        ///
        /// - Returns: `false` when the table is full of URLs with access started.
        @discardableResult
        func register(_ url: URL, path: [UInt8], device: DeviceNumber, inode: UInt64, readOnly: Bool) -> Bool {
            let key = Self.key(url)
            return state.withLock { state in
                state.nextSerial += 1
                if var entry = state.entries[key] {
                    entry.path = path
                    entry.device = device
                    entry.inode = inode
                    entry.readOnly = readOnly
                    entry.serial = state.nextSerial
                    state.entries[key] = entry
                    return true
                }
                if state.entries.count >= capacity {
                    // Drop the oldest idle entry; a started one is never dropped.
                    guard let idle = state.entries.filter({ $0.value.starts == 0 }).min(by: { $0.value.serial < $1.value.serial })
                    else { return false }
                    state.entries[idle.key] = nil
                }
                state.entries[key] = Entry(
                    path: path, device: device, inode: inode, readOnly: readOnly, starts: 0, serial: state.nextSerial)
                return true
            }
        }

        /// The entry for `url`, if it is registered.
        func entry(for url: URL) -> Entry? {
            let key = Self.key(url)
            return state.withLock { $0.entries[key] }
        }

        /// Counts a start; `false` (nothing counted) for a URL that is not registered.
        func start(_ url: URL) -> Bool {
            let key = Self.key(url)
            return state.withLock { state in
                guard state.entries[key] != nil else { return false }
                state.entries[key]?.starts += 1
                return true
            }
        }

        /// Balances a start; nothing happens for a URL that is not registered or has no start left.
        func stop(_ url: URL) {
            let key = Self.key(url)
            state.withLock { state in
                guard let starts = state.entries[key]?.starts, starts > 0 else { return }
                state.entries[key]?.starts = starts - 1
            }
        }

        /// How many URLs are registered (for tests).
        var count: Int { state.withLock { $0.entries.count } }
    }
#endif
