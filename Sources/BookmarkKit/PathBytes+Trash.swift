// SPDX-License-Identifier: Apache-2.0
import SecureFiles

extension PathBytes {
    static let trashWord = Array("Trash".utf8)

    /// Whether the path lies inside a freedesktop.org Trash: `…/Trash/files/…` (the home trash),
    /// `.Trash-UID/files/…` or `.Trash/UID/files/…` (a volume's trash). Lexical: nothing is read.
    public var isInTrash: Bool {
        // Cheap rejection: every Trash form contains "Trash".
        let containsTrash = contains(Self.trashWord)
        guard containsTrash else { return false }
        let parts = components
        guard parts.count >= 2 else { return false }
        for index in 0..<(parts.count - 1) where parts[index + 1] == Array("files".utf8) {
            let name = parts[index]
            if name == Array("Trash".utf8) || name.starts(with: Array(".Trash-".utf8)) { return true }
            if index > 0, parts[index - 1] == Array(".Trash".utf8) { return true }
        }
        return false
    }
}
