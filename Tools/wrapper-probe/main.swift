// SPDX-License-Identifier: Apache-2.0
// A process that saves a package with FileWrapper, for tests that need another user or another
// process: `wrapper-probe edit PACKAGE CHILD TEXT` reads PACKAGE lazily, replaces CHILD's contents
// with TEXT and saves atomically in place (unchanged children linked where allowed). It prints
// `saved`, or the error and exits 1.
import Documents
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 5, arguments[1] == "edit" else {
    FileHandle.standardError.write(Data("usage: wrapper-probe edit PACKAGE CHILD TEXT\n".utf8))
    exit(64)
}
let url = URL(fileURLWithPath: arguments[2])
do {
    let package = try FileWrapper(url: url)
    if let old = package.fileWrappers?[arguments[3]] { package.removeFileWrapper(old) }
    package.addRegularFile(withContents: Data(arguments[4].utf8), preferredFilename: arguments[3])
    try package.write(to: url, options: [.atomic, .withNameUpdating], originalContentsURL: url)
    print("saved")
} catch {
    print("error: \(error)")
    exit(1)
}
