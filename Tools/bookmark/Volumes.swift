// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import FileIdentity
import Foundation

extension BookmarkCommand {
    /// `bookmark volumes`: every mounted volume with its UUID and where the UUID came from.
    struct Volumes: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "volumes",
            abstract: "List mounted volumes with their UUID, its source, label and type.",
            discussion: """
                Pseudo file systems (proc, sysfs, cgroup, …) are left out unless --all. Network file \
                systems are listed from the mount table without being opened, so nothing blocks.
                """)

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Include pseudo file systems (proc, sysfs, cgroup, …).")
        var all = false

        func run() throws {
            let volumes: [Volume]
            do {
                volumes = try MountedVolumes().allVolumes(includingPseudo: all)
            } catch {
                throw Output.fail(error, path: "/proc/self/mountinfo").exitCode
            }
            if global.json {
                try Output.json(volumes.map(VolumeJSON.init))
                return
            }
            let rows = volumes.map { volume -> [String] in
                let json = VolumeJSON(volume)
                return [json.mountPoint, json.fsType, json.device, json.uuid ?? "-", json.uuidSource, json.label ?? "-"]
            }
            printTable(header: ["MOUNT POINT", "TYPE", "DEVICE", "UUID", "UUID SOURCE", "LABEL"], rows: rows)
        }
    }
}

/// Prints rows as left-aligned columns.
func printTable(header: [String], rows: [[String]]) {
    let all = [header] + rows
    let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
    for row in all {
        let cells = row.enumerated().map { index, cell in
            index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
        }
        Output.line(cells.joined(separator: "  "))
    }
}
