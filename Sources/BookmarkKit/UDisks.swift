// SPDX-License-Identifier: Apache-2.0
import Foundation
import SecureFiles
import SystemPackage

/// Mounting through UDisks2 (`udisksctl`), only when the caller opts in.
enum UDisks {
    /// The `udisksctl` executable on PATH, or `nil`.
    static func executable() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/udisksctl"
            // statx through the seam, not access(2) behind Foundation's back.
            if let status = try? FileStatus(path: FilePath(candidate)), status.kind == .regular,
                status.permissions & 0o111 != 0
            {
                return candidate
            }
        }
        return nil
    }

    /// `udisksctl mount --no-user-interaction -b DEVICE`; whether it exited 0.
    static func mount(device: String, using executable: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["mount", "--no-user-interaction", "-b", device]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
