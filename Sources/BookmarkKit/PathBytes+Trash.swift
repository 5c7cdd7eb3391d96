// SPDX-License-Identifier: Apache-2.0
import SecureFiles

extension PathBytes {
    /// Whether the path lies inside a freedesktop.org Trash: `…/Trash/files/…` (the home trash),
    /// `.Trash-UID/files/…` or `.Trash/UID/files/…` (a volume's trash). Lexical: nothing is read.
    public var isInTrash: Bool {
        // Cheap rejection: every Trash form contains "Trash".
        let containsTrash = bytes.withUnsafeBufferPointer { b -> Bool in
            guard b.count >= 5 else { return false }
            for i in 0...(b.count - 5) where b[i] == UInt8(ascii: "T") {
                if b[i + 1] == UInt8(ascii: "r"), b[i + 2] == UInt8(ascii: "a"), b[i + 3] == UInt8(ascii: "s"),
                    b[i + 4] == UInt8(ascii: "h")
                {
                    return true
                }
            }
            return false
        }
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
