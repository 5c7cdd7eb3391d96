// SPDX-License-Identifier: Apache-2.0
@testable import BookmarkFormat
import Testing

/// The eight-bytes-at-a-time comparison against `elementsEqual`, at every length and every
/// position of a difference.
@Suite("Raw byte comparison")
struct RawBytesTests {
    @Test("equal exactly when elementsEqual says so, lengths 0 to 40, a difference anywhere")
    func againstElementsEqual() {
        for length in 0...40 {
            let base = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            var variants: [[UInt8]] = [base, base + [0], Array(base.dropLast())]
            for position in 0..<length {
                var changed = base
                changed[position] ^= 0x20
                variants.append(changed)
            }
            for other in variants {
                let same = base.withUnsafeBytes { RawBytes.equal($0, other) }
                #expect(same == base.elementsEqual(other), "length \(length)")
            }
        }
    }
}
