// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// Facts about the running process that the layers above ask often, from one place.
package enum ProcessFacts {
    /// The processors online when first asked (`sysconf(_SC_NPROCESSORS_ONLN)`, which reads
    /// `/sys/devices/system/cpu/online`): read once, not by every chunk of a batch.
    package static let onlineProcessors: Int = max(1, Int(sysconf(CInt(_SC_NPROCESSORS_ONLN))))

    /// Whether the process runs with effective uid 0 (`geteuid`).
    package static var isEffectivelyRoot: Bool { geteuid() == 0 }
}
