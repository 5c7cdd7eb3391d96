// SPDX-License-Identifier: Apache-2.0
import Foundation
import SecureFiles
import Testing
import VolumeFixtures

/// The cross-check the audit log cannot make about itself: run a binary that exercises every
/// operation of the library under `strace -f` and confirm that, between its markers, the process
/// named no file by absolute path (only `/proc/…`, the documented exception) and used no
/// path-only syscall (`open`, `stat`, `chmod`…): everything was relative to a descriptor.
@Suite("strace cross-check")
struct StraceTests {
    /// Path-taking syscalls that have no directory-descriptor argument at all.
    static let pathOnlyCalls: Set<String> = [
        "open", "creat", "stat", "lstat", "access", "chmod", "chown", "lchown", "mkdir", "rmdir", "unlink", "rename",
        "link", "symlink", "readlink", "truncate", "utimes", "mknod", "chdir", "chroot", "statfs", "getxattr",
        "setxattr", "listxattr", "removexattr", "lgetxattr", "lsetxattr", "umask",
    ]

    /// The lines of an strace log between the markers that break the rules, and how many file
    /// syscalls were seen there.
    static func violations(in log: String) -> (violations: [String], fileCalls: Int, sawMarkers: Bool) {
        var inside = false
        var sawBegin = false
        var sawEnd = false
        var violations: [String] = []
        var fileCalls = 0
        for rawLine in log.split(separator: "\n") {
            var line = Substring(rawLine)
            if let space = line.firstIndex(of: " "), line[..<space].allSatisfy(\.isNumber) {
                line = line[line.index(after: space)...].drop { $0 == " " }
            }
            if line.contains("SECURE-PROBE-BEGIN") {
                inside = true
                sawBegin = true
                continue
            }
            if line.contains("SECURE-PROBE-END") {
                inside = false
                sawEnd = true
                continue
            }
            guard inside, let paren = line.firstIndex(of: "(") else { continue }
            let call = String(line[..<paren])
            if call == "write" { continue }
            fileCalls += 1
            if pathOnlyCalls.contains(call) {
                violations.append(String(line))
                continue
            }
            // Every quoted argument that starts with "/" must be under /proc/.
            var rest = line[line.index(after: paren)...]
            while let quote = rest.firstIndex(of: "\"") {
                let after = rest[rest.index(after: quote)...]
                guard let close = after.firstIndex(of: "\"") else { break }
                let argument = after[..<close]
                if argument.hasPrefix("/") && !argument.hasPrefix("/proc/") {
                    violations.append(String(line))
                    break
                }
                rest = after[after.index(after: close)...]
            }
        }
        return (violations, fileCalls, sawBegin && sawEnd)
    }

    @Test("the checker flags absolute paths and path-only calls (so the real check can fail)")
    func checkerCanFail() {
        let log = """
            1 write(2, "SECURE-PROBE-BEGIN\\n", 19) = 19
            1 openat(AT_FDCWD, "/etc/passwd", O_RDONLY) = 3
            1 stat("relative", {...}) = 0
            1 openat(3, "fine", O_RDONLY|O_NOFOLLOW) = 4
            1 openat(AT_FDCWD, "/proc/self/status", O_RDONLY) = 5
            1 write(2, "SECURE-PROBE-END\\n", 17) = 17
            1 openat(AT_FDCWD, "/after/the/end", O_RDONLY) = 6
            """
        let result = Self.violations(in: log)
        #expect(result.violations.count == 2)
        #expect(result.fileCalls == 4)
        #expect(result.sawMarkers)
    }

    @Test("secure-probe under strace -f: no absolute-path file syscalls from the library",
          .requiresProgram("strace", installedBy: "Tools/install-deps", requiredInCI: true))
    func straceProbe() throws {
        let probe = try #require(ProbeTool.path)
        let scratch = try TreeFixture.scratch("strace")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let log = scratch + ".strace"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let result = try Shell.run([
            "sh", "-c",
            "cd '\(scratch)' && exec strace -f -qq -s 256 -e trace=%file,%desc,openat2 -o '\(log)' '\(probe)' exercise",
        ])
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("exercise ok"))
        let text = try String(contentsOfFile: log, encoding: .utf8)
        let check = Self.violations(in: text)
        print("strace: \(check.fileCalls) file and descriptor syscalls between the markers, \(check.violations.count) violations")
        #expect(check.sawMarkers)
        #expect(check.fileCalls > 100)
        #expect(text.contains("openat2(") && text.contains("mkdirat(") && text.contains("renameat2(") && text.contains("linkat("))
        #expect(check.violations.isEmpty, "\(check.violations.prefix(20).joined(separator: "\n"))")
    }
}
