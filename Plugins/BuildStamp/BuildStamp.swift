// SPDX-License-Identifier: Apache-2.0
import Foundation
import PackagePlugin

/// Writes `BuildStamp.swift` (the git commit the package is built from) before every build of the
/// `bookmark` command, for `bookmark --version`. It runs `git` from the system, which a prebuild
/// command may; the file is rewritten only when the commit (or its dirty flag) changed, so an
/// unchanged tree does not recompile. Without git or a repository the commit reads `unknown`.
@main
struct BuildStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "stamp")
        let script = context.package.directoryURL.appending(path: "Tools/stamp-build")
        return [
            .prebuildCommand(
                displayName: "Stamping the build with its git commit",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, context.package.directoryURL.path, output.path],
                outputFilesDirectory: output)
        ]
    }
}
