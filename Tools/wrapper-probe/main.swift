// SPDX-License-Identifier: Apache-2.0
// A process that saves a package with FileWrapper, for tests that need another user or another
// process: `wrapper-probe edit PACKAGE CHILD TEXT` reads PACKAGE, replaces CHILD's contents with
// TEXT and saves atomically in place (unchanged children linked where allowed). It prints `saved`,
// or the error and exits 1.
//
// `wrapper-probe save-as SOURCE DESTINATION` opens the text document SOURCE with a
// DocumentController and saves it to DESTINATION (Save As). It prints `saved`, or, for a
// `CocoaError`, `cocoa CODE` and then the underlying error, and exits 1.
//
// WRAPPER_PROBE_KILL_AT makes the process kill itself with SIGKILL during the save, through the
// fault-injection seam (nothing in the library changes):
//   CALL:N           just before the Nth system call named CALL (linkat:1, fsync:2, …)
//   before-exchange  just before the renameat2 that swaps the new package in
//   after-exchange   just after it, before the parent directory is synced
//   during-cleanup   before the first unlinkat that removes the old tree
//   after-return     just after the save returns (with WRAPPER_PROBE_BACKGROUND, the old tree may
//                    not be removed yet)
//
// WRAPPER_PROBE_BACKGROUND=1 saves with .removingOldTreeInBackground: the old tree is removed on a
// background queue, which a normal exit waits for.
import Documents
import Foundation
import SecureFiles
import Synchronization
import SystemPackage

/// Kills this process at the point WRAPPER_PROBE_KILL_AT names.
final class KillSwitch: SyscallObserver {
    let point: String
    let state = Mutex<(counts: [String: Int], exchanged: Bool)>(([:], false))

    init(point: String) { self.point = point }

    func fault(for call: SyscallCall) -> Errno? {
        let die = state.withLock { state -> Bool in
            state.counts[call.name, default: 0] += 1
            let isExchange = call.name == "renameat2" && call.flags == 2
            defer { if isExchange { state.exchanged = true } }
            switch point {
            case "before-exchange": return isExchange
            case "after-exchange": return state.exchanged && call.name == "fsync"
            case "during-cleanup": return state.exchanged && call.name == "unlinkat"
            default:
                let parts = point.split(separator: ":")
                return parts.count == 2 && call.name == parts[0] && state.counts[call.name] == Int(parts[1])
            }
        }
        if die { kill(getpid(), SIGKILL) }
        return nil
    }

    func record(_ call: SyscallCall, outcome: SyscallOutcome) {}
}

/// A plain-text document, for `save-as`.
struct ProbeText: FileDocument {
    static var readableContentTypes: [UTType] { [.plainText] }
    var text: Data
    init(configuration: ReadConfiguration) throws { text = configuration.file.regularFileContents ?? Data() }
    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper { FileWrapper(regularFileWithContents: text) }
}

let arguments = CommandLine.arguments
if arguments.count == 4, arguments[1] == "save-as" {
    do {
        let controller = try DocumentController<ProbeText>(contentsOf: URL(fileURLWithPath: arguments[2]))
        try controller.save(to: URL(fileURLWithPath: arguments[3]))
        print("saved")
    } catch let error as CocoaError {
        print("cocoa \(error.code.rawValue)")
        print("\(error.underlying.map { "\($0)" } ?? "no underlying error")")
        exit(1)
    } catch {
        print("error: \(error)")
        exit(1)
    }
    exit(0)
}
guard arguments.count == 5, arguments[1] == "edit" else {
    FileHandle.standardError.write(Data("usage: wrapper-probe edit PACKAGE CHILD TEXT | save-as SOURCE DESTINATION\n".utf8))
    exit(64)
}
let url = URL(fileURLWithPath: arguments[2])
do {
    let package = try FileWrapper(url: url, options: .immediate)
    if let old = package.fileWrappers?[arguments[3]] { package.removeFileWrapper(old) }
    package.addRegularFile(withContents: Data(arguments[4].utf8), preferredFilename: arguments[3])
    var options: FileWrapper.WritingOptions = [.atomic, .withNameUpdating]
    if ProcessInfo.processInfo.environment["WRAPPER_PROBE_BACKGROUND"] == "1" { options.insert(.removingOldTreeInBackground) }
    let save = { try package.write(to: url, options: options, originalContentsURL: url) }
    if let point = ProcessInfo.processInfo.environment["WRAPPER_PROBE_KILL_AT"] {
        try SyscallSeam.$observer.withValue(KillSwitch(point: point)) { try save() }
        if point == "after-return" { kill(getpid(), SIGKILL) }
    } else {
        try save()
    }
    print("saved")
} catch {
    print("error: \(error)")
    exit(1)
}
