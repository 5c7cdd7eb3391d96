// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import SecureFiles
    import SystemPackage

    /// A problem ``PackageVerifier`` found in a package.
    public struct PackageProblem: Sendable, Hashable, CustomStringConvertible {
        /// What is wrong.
        public enum Kind: Sendable, Hashable {
            /// The entry could not be opened or read to its end.
            case unreadable(FileSystemError)
            /// A symbolic link whose text leads out of the package (absolute, or with more `..`
            /// than the link is deep).
            case linkLeavesPackage(target: [UInt8])
            /// Neither a regular file, a directory nor a symbolic link (a device, FIFO or socket).
            case unsupportedKind(FileKind)
        }

        /// The entry's path inside the package (bytes; `/`-separated).
        public var path: [UInt8]
        /// What is wrong with it.
        public var kind: Kind

        /// One line for a person (paths escaped).
        public var description: String {
            let where_ = PathBytes(path).escaped
            switch kind {
            case .unreadable(let error): return "\(where_): unreadable: \(error)"
            case .linkLeavesPackage(let target): return "\(where_): link leaves the package: -> \(PathBytes(target).escaped)"
            case .unsupportedKind(let kind): return "\(where_): not a file, directory or link: \(kind.rawValue)"
            }
        }
    }

    /// Checks a package the way a reader depends on it: every entry readable to its end, every
    /// symbolic link staying inside the package, nothing but files, directories and links. It walks
    /// through directory descriptors without following any link, and reports every problem rather
    /// than stopping at the first.
    public enum PackageVerifier {
        /// What a verification found.
        public struct Report: Sendable {
            /// Entries checked (the package itself included).
            public var entries: Int
            /// Bytes read.
            public var bytes: UInt64
            /// The problems, in walk order.
            public var problems: [PackageProblem]
        }

        /// Verifies the package at `path` (a directory, or a single file).
        ///
        /// - Throws: `FileSystemError` only when the package itself cannot be opened.
        public static func verify(_ path: FilePath) throws(FileSystemError) -> Report {
            let bytes = PathBytes(path)
            guard let name = bytes.lastComponent else {
                throw FileSystemError(syscall: "openat", errno: .invalidArgument, path: path)
            }
            let parent = try Directory.current.open(bytes: bytes.parent.bytes, options: [.pathOnly, .directory])
            defer { try? parent.close() }
            var report = Report(entries: 0, bytes: 0, problems: [])
            let top = try parent.statusOfChild(name)
            check(name, in: parent, status: top, relative: [], depth: 0, report: &report)
            return report
        }

        private static func check(
            _ name: [UInt8], in parent: OwnedDescriptor, status: FileStatus, relative: [UInt8], depth: Int,
            report: inout Report
        ) {
            report.entries += 1
            let here = relative.isEmpty ? [UInt8(ascii: ".")] : relative
            switch status.kind {
            case .regular:
                do throws(FileSystemError) {
                    let file = try parent.openChild(name, options: .readOnly)
                    defer { try? file.close() }
                    report.bytes += UInt64(try file.readToEnd(limit: Int.max).count)
                } catch {
                    report.problems.append(PackageProblem(path: here, kind: .unreadable(error)))
                }
            case .symlink:
                do throws(FileSystemError) {
                    let target = try parent.symlinkTarget(ofChild: name)
                    if leaves(target, depth: depth - 1) {
                        report.problems.append(PackageProblem(path: here, kind: .linkLeavesPackage(target: target)))
                    }
                } catch {
                    report.problems.append(PackageProblem(path: here, kind: .unreadable(error)))
                }
            case .directory:
                do throws(FileSystemError) {
                    let directory = try parent.openChild(name, options: [.readOnly, .directory])
                    defer { try? directory.close() }
                    let entries = try directory.directoryEntries()
                        .filter { $0.name != [0x2E] && $0.name != [0x2E, 0x2E] }
                        .sorted { $0.name.lexicographicallyPrecedes($1.name) }
                    for entry in entries {
                        let childPath = relative.isEmpty ? entry.name : relative + [0x2F] + entry.name
                        do throws(FileSystemError) {
                            let childStatus = try directory.statusOfChild(entry.name)
                            check(entry.name, in: directory, status: childStatus, relative: childPath, depth: depth + 1, report: &report)
                        } catch {
                            report.entries += 1
                            report.problems.append(PackageProblem(path: childPath, kind: .unreadable(error)))
                        }
                    }
                } catch {
                    report.problems.append(PackageProblem(path: here, kind: .unreadable(error)))
                }
            default:
                report.problems.append(PackageProblem(path: here, kind: .unsupportedKind(status.kind)))
            }
        }

        /// Whether a link's text, read in a directory `depth` levels below the package's root, leads
        /// out of the package: an absolute target does; a relative one does when its `..` climb above
        /// the root at any point.
        static func leaves(_ target: [UInt8], depth: Int) -> Bool {
            if target.first == 0x2F { return true }
            var level = max(0, depth)
            for component in target.split(separator: 0x2F, omittingEmptySubsequences: true) {
                if component.elementsEqual([0x2E]) { continue }
                if component.elementsEqual([0x2E, 0x2E]) {
                    level -= 1
                    if level < 0 { return true }
                } else {
                    level += 1
                }
            }
            return false
        }
    }
#endif
