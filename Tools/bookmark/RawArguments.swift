// SPDX-License-Identifier: Apache-2.0
import SecureFiles
import SystemPackage

/// `argv` as bytes, through ArgumentParser, which only takes `String`s.
///
/// Swift decodes `CommandLine.arguments` as UTF-8 and replaces every invalid byte with U+FFFD, so
/// `bookmark make $'caf\xe9.txt'` would look for `café.txt`'s replacement, a file that does not
/// exist. Instead the command hands ArgumentParser strings in which each byte that is not part of
/// valid UTF-8 is carried by a private-use scalar (byte `b` as U+10FF00 + `b`, like Python's
/// `surrogateescape`), and turns every path argument back into its exact bytes with
/// ``bytes(of:)``. A valid UTF-8 argument that itself holds one of those 128 scalars has its bytes
/// carried the same way, so the mapping is one-to-one and every argument comes back unchanged.
/// Flags are ASCII, which is always valid UTF-8, so the parser sees them as they are.
enum RawArguments {
    /// The first scalar of the carrier range: byte `b` (0x80...0xFF) is U+10FF00 + `b`.
    private static let base: UInt32 = 0x10_FF00
    /// Carriers are U+10FF80...U+10FFFF.
    private static let carriers: ClosedRange<UInt32> = 0x10_FF80...0x10_FFFF

    /// The arguments after the program name, as strings that ``bytes(of:)`` turns back into argv's bytes.
    static func current() -> [String] {
        var result: [String] = []
        let count = Int(CommandLine.argc)
        guard count > 1 else { return [] }
        for index in 1..<count {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            var bytes: [UInt8] = []
            var cursor = pointer
            while cursor.pointee != 0 {
                bytes.append(UInt8(bitPattern: cursor.pointee))
                cursor += 1
            }
            result.append(carrying(bytes))
        }
        return result
    }

    /// `bytes` as a string: valid UTF-8 as it is, every other byte as its carrier scalar.
    static func carrying(_ bytes: [UInt8]) -> String {
        if let valid = String(validating: bytes, as: UTF8.self), !valid.unicodeScalars.contains(where: isCarrier) {
            return valid
        }
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < bytes.count {
            if let (scalar, length) = decodeScalar(bytes, at: index), !isCarrier(scalar) {
                scalars.append(scalar)
                index += length
            } else {
                scalars.append(carrier(of: bytes[index]))
                index += 1
            }
        }
        return String(scalars)
    }

    /// The exact argv bytes an argument string stands for.
    static func bytes(of argument: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(argument.utf8.count)
        for scalar in argument.unicodeScalars {
            if isCarrier(scalar) {
                bytes.append(UInt8(truncatingIfNeeded: scalar.value - base))
            } else {
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        return bytes
    }

    /// An argument as a path, byte for byte.
    static func path(_ argument: String) -> PathBytes { PathBytes(bytes(of: argument)) }

    /// An argument as a `FilePath`, byte for byte (a `FilePath` collapses `//`; see ``PathBytes``).
    static func filePath(_ argument: String) -> FilePath { path(argument).filePath }

    /// An argument for a message to a person: the bytes escaped where they are not printable.
    static func display(_ argument: String) -> String { path(argument).escaped }

    private static func isCarrier(_ scalar: Unicode.Scalar) -> Bool { carriers.contains(scalar.value) }

    private static func carrier(of byte: UInt8) -> Unicode.Scalar {
        // Every value in `carriers` is a valid scalar (plane 16, private use and two noncharacters).
        Unicode.Scalar(base + UInt32(byte)) ?? "\u{FFFD}"
    }

    /// The scalar encoded at `index`, and its length, when the bytes there are valid UTF-8.
    private static func decodeScalar(_ bytes: [UInt8], at index: Int) -> (Unicode.Scalar, Int)? {
        let first = bytes[index]
        if first < 0x80 { return (Unicode.Scalar(first), 1) }
        let length: Int
        switch first {
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        guard let text = String(validating: bytes[index..<(index + length)], as: UTF8.self),
            let scalar = text.unicodeScalars.first, text.unicodeScalars.count == 1
        else { return nil }
        return (scalar, length)
    }
}
