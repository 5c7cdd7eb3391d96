// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: limits that keep decoding of hostile input bounded.

/// Bounds on what the decoders accept, so that hostile input costs bounded time and memory.
public struct BookmarkDecodingLimits: Sendable, Hashable {
    /// Largest input accepted, in bytes (default 16 MiB).
    public var maxInputSize: Int
    /// Deepest nesting of arrays, dictionaries and relative URLs (default 32).
    public var maxDepth: Int
    /// Most item nodes after expanding shared references, over all TOCs (default 65,536).
    public var maxItems: Int
    /// Most tables of contents in one chain (default 64).
    public var maxTOCs: Int
    /// Most bytes the item trees may hold once shared references are expanded (default 64 MiB),
    /// so a large string referenced thousands of times cannot make encoding or dumping explode.
    public var maxExpandedBytes: Int

    /// Creates limits.
    public init(maxInputSize: Int = 16 << 20, maxDepth: Int = 32, maxItems: Int = 65_536, maxTOCs: Int = 64,
                maxExpandedBytes: Int = 64 << 20)
    {
        self.maxInputSize = maxInputSize
        self.maxDepth = maxDepth
        self.maxItems = maxItems
        self.maxTOCs = maxTOCs
        self.maxExpandedBytes = maxExpandedBytes
    }

    /// The defaults.
    public static let `default` = BookmarkDecodingLimits()
}
