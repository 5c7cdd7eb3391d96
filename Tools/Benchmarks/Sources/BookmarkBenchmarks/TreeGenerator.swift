// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// The tree a run built: where it is and which files the metrics may pick from.
struct Workload {
    /// The volume's mount point.
    var root: String
    /// Regular files inside projects' `src` folders: (project folder, file), both relative to `root`.
    var projectFiles: [(project: String, file: String)] = []
    /// Every other regular file, relative to `root`.
    var otherFiles: [String] = []
    /// Entries made (files and folders, the top-level folders included).
    var entries = 0
    /// Folders made.
    var directories = 0
}

/// Builds a home-directory-shaped tree of exactly `target` entries, deterministically from a seed:
/// `Projects/` (45 %: source modules, docs, tests, `.git/objects`), `Pictures/` (20 %: year and
/// month folders of photos), `Documents/` (15 %: nested folders), `.cache/` (10 %: hashed
/// folders), `Music/` (5 %: artist/album/track), `.config/` (2 %) and `Downloads/` (the rest).
/// Files are empty: resolution reads names and inodes, not contents.
struct TreeGenerator {
    private var rng: SeededGenerator
    private var workload: Workload
    private let target: Int
    private var failure: String?

    init(root: String, entries: Int, seed: UInt64) {
        rng = SeededGenerator(seed: seed)
        workload = Workload(root: root)
        target = max(entries, 64)
    }

    private static let words = [
        "notes", "archive", "reports", "drafts", "taxes", "invoices", "scans", "letters", "old", "misc", "work",
        "personal", "travel", "recipes", "manuals", "slides", "data", "backup", "school", "family", "receipts",
    ]
    private static let extensions = ["pdf", "docx", "txt", "odt", "xlsx", "md", "png", "csv"]

    /// Builds the tree and returns what it made.
    mutating func build() throws -> Workload {
        let shares: [(String, Double, (inout TreeGenerator, String, Int) -> Void)] = [
            ("Projects", 0.45, { $0.projects($1, budget: $2) }),
            ("Pictures", 0.20, { $0.pictures($1, budget: $2) }),
            ("Documents", 0.15, { $0.folders($1, budget: $2, depth: 0) }),
            (".cache", 0.10, { $0.cache($1, budget: $2) }),
            ("Music", 0.05, { $0.music($1, budget: $2) }),
            (".config", 0.02, { $0.cache($1, budget: $2) }),
        ]
        for (name, share, fill) in shares {
            let budget = Int(Double(target) * share) - 1
            directory(name)
            fill(&self, name, budget)
        }
        directory("Downloads")
        var index = 0
        while workload.entries < target {
            file("Downloads/download-\(index).\(rng.pick(Self.extensions))")
            index += 1
        }
        if let failure { throw CommandError(command: ["build tree"], status: 1, output: failure) }
        return workload
    }

    // MARK: - Sections

    private mutating func projects(_ base: String, budget: Int) {
        let end = workload.entries + budget
        var number = 0
        while workload.entries < end {
            let size = min(end - workload.entries, rng.int(300...2500))
            project("\(base)/project-\(number)", budget: size)
            number += 1
        }
    }

    private mutating func project(_ dir: String, budget: Int) {
        let end = workload.entries + budget
        directory(dir)
        for name in ["README.md", "LICENSE", "Makefile", ".gitignore"] where workload.entries < end { file("\(dir)/\(name)") }
        if workload.entries + 2 < end {
            directory("\(dir)/src")
            let gitShare = (end - workload.entries) * 3 / 10
            let sourceEnd = end - gitShare - min(40, (end - workload.entries) / 10)
            var module = 0
            while workload.entries < sourceEnd {
                let size = min(sourceEnd - workload.entries, rng.int(20...200))
                sourceFolder("\(dir)/src/module-\(module)", project: dir, budget: size, depth: 0)
                module += 1
            }
        }
        if workload.entries + 2 < end {
            directory("\(dir)/docs")
            var index = 0
            while workload.entries < end && index < rng.int(3...12) {
                file("\(dir)/docs/guide-\(index).md")
                index += 1
            }
        }
        if workload.entries + 3 < end {
            directory("\(dir)/.git")
            directory("\(dir)/.git/objects")
            var buckets: [String] = []
            while workload.entries < end {
                if buckets.isEmpty || rng.int(0...9) == 0 {
                    let bucket = "\(dir)/.git/objects/\(rng.hex(2))-\(buckets.count)"
                    directory(bucket)
                    buckets.append(bucket)
                    continue
                }
                file("\(rng.pick(buckets))/\(rng.hex(38))")
            }
        }
    }

    /// A source folder: files, and sometimes subfolders (down to four levels).
    private mutating func sourceFolder(_ dir: String, project: String, budget: Int, depth: Int) {
        let end = workload.entries + budget
        directory(dir)
        let files = rng.int(3...25)
        var index = 0
        while workload.entries < end && index < files {
            let path = "\(dir)/file-\(index).swift"
            file(path)
            workload.projectFiles.append((project: project, file: path))
            workload.otherFiles.removeLast()
            index += 1
        }
        var sub = 0
        while workload.entries < end && depth < 4 {
            let size = min(end - workload.entries, rng.int(4...60))
            sourceFolder("\(dir)/part-\(sub)", project: project, budget: size, depth: depth + 1)
            sub += 1
        }
    }

    private mutating func pictures(_ base: String, budget: Int) {
        let end = workload.entries + budget
        var year = 2008
        while workload.entries < end {
            directory("\(base)/\(year)")
            for month in 1...12 where workload.entries < end {
                let folder = "\(base)/\(year)/\(year)-\(month < 10 ? "0" : "")\(month)"
                directory(folder)
                let count = rng.int(20...180)
                var index = 0
                while workload.entries < end && index < count {
                    file("\(folder)/IMG_\(10_000 + index).jpg")
                    index += 1
                }
            }
            year += 1
        }
    }

    /// Nested folders with a few files each (Documents).
    private mutating func folders(_ dir: String, budget: Int, depth: Int) {
        let end = workload.entries + budget
        let files = rng.int(2...20)
        var index = 0
        while workload.entries < end && index < files {
            file("\(dir)/\(rng.pick(Self.words))-\(index).\(rng.pick(Self.extensions))")
            index += 1
        }
        var sub = 0
        while workload.entries < end {
            let name = "\(dir)/\(rng.pick(Self.words))-\(sub)"
            directory(name)
            let size = depth < 5 ? min(end - workload.entries, rng.int(5...400)) : 0
            if size == 0 {
                if depth >= 5 { return }
                continue
            }
            folders(name, budget: size, depth: depth + 1)
            sub += 1
        }
    }

    /// Application folders of hashed subfolders (.cache, .config).
    private mutating func cache(_ base: String, budget: Int) {
        let end = workload.entries + budget
        var app = 0
        while workload.entries < end {
            let dir = "\(base)/app-\(app)"
            directory(dir)
            let buckets = rng.int(1...32)
            for bucket in 0..<buckets where workload.entries < end {
                let folder = "\(dir)/\(rng.hex(2))\(bucket)"
                directory(folder)
                for _ in 0..<rng.int(1...40) where workload.entries < end { file("\(folder)/\(rng.hex(16))") }
            }
            app += 1
        }
    }

    private mutating func music(_ base: String, budget: Int) {
        let end = workload.entries + budget
        var artist = 0
        while workload.entries < end {
            let dir = "\(base)/Artist \(artist)"
            directory(dir)
            for album in 0..<rng.int(1...5) where workload.entries < end {
                directory("\(dir)/Album \(album)")
                for track in 1...rng.int(6...16) where workload.entries < end {
                    file("\(dir)/Album \(album)/\(track) Track \(track).flac")
                }
            }
            artist += 1
        }
    }

    // MARK: - Making entries

    private mutating func directory(_ relative: String) {
        if mkdir(workload.root + "/" + relative, 0o755) != 0 && errno != EEXIST {
            failure = failure ?? "mkdir \(relative): errno \(errno)"
        }
        workload.entries += 1
        workload.directories += 1
    }

    private mutating func file(_ relative: String) {
        let fd = open(workload.root + "/" + relative, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        if fd >= 0 { close(fd) } else { failure = failure ?? "create \(relative): errno \(errno)" }
        workload.entries += 1
        workload.otherFiles.append(relative)
    }
}
