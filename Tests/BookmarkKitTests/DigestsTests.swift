// SPDX-License-Identifier: Apache-2.0
import Digests
import Foundation
import Testing
import VolumeFixtures

/// SHA-256 and HMAC-SHA256 through the system's libcrypto (Sources/Digests): the published test
/// vectors, and Python's hashlib and hmac as a second, independent implementation.
@Suite("Digests (libcrypto)")
struct DigestsTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test("SHA-256: the FIPS 180-2 examples, and a million 'a' fed in uneven pieces")
    func sha256Vectors() {
        #expect(Self.hex(Digests.sha256([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Self.hex(Digests.sha256(Array("abc".utf8)))
            == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Self.hex(Digests.sha256(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        var hasher = SHA256Hasher()
        let a = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        var at = 0
        var piece = 1
        while at < a.count {
            let end = min(a.count, at + piece)
            a[at..<end].withUnsafeBytes { hasher.update($0) }
            at = end
            piece = piece * 3 + 1
        }
        #expect(Self.hex(hasher.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("HMAC-SHA256: RFC 4231 cases 1, 2 and 6 (a key longer than a block); a changed code or a short one is refused")
    func hmacVectors() {
        let cases: [(key: [UInt8], message: String, code: String)] = [
            ([UInt8](repeating: 0x0B, count: 20), "Hi There",
             "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
            (Array("Jefe".utf8), "what do ya want for nothing?",
             "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
            ([UInt8](repeating: 0xAA, count: 131), "Test Using Larger Than Block-Size Key - Hash Key First",
             "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        ]
        for (key, message, code) in cases {
            let made = Digests.hmacSHA256(Array(message.utf8), key: key)
            #expect(Self.hex(made) == code)
            #expect(Digests.isValidHMACSHA256(made, for: Array(message.utf8), key: key))
            var changed = made
            changed[31] ^= 1
            #expect(!Digests.isValidHMACSHA256(changed, for: Array(message.utf8), key: key))
            #expect(!Digests.isValidHMACSHA256(Array(made.prefix(31)), for: Array(message.utf8), key: key))
            #expect(!Digests.isValidHMACSHA256(made, for: Array((message + "!").utf8), key: key))
        }
    }

    @Test("random keys and messages agree with Python's hashlib and hmac")
    func agreesWithPython() throws {
        guard Shell.has("python3") else {
            print("skipped: python3 is not installed (Tools/install-deps installs it)")
            return
        }
        var lines: [String] = []
        var expected: [String] = []
        for size in [0, 1, 55, 56, 63, 64, 65, 1000, 100_000] {
            // An empty key too (size 0): `SigningKey(bytes:)` takes any bytes.
            let key = Digests.randomBytes(size % 97)
            let message = Digests.randomBytes(size)
            lines.append("\(Self.hex(key)) \(Self.hex(message))")
            expected.append("\(Self.hex(Digests.sha256(message))) \(Self.hex(Digests.hmacSHA256(message, key: key)))")
        }
        let script = """
            import sys, hashlib, hmac
            for line in sys.stdin:
                k, _, m = line.rstrip("\\n").partition(" ")
                k, m = bytes.fromhex(k), bytes.fromhex(m)
                print(hashlib.sha256(m).hexdigest(), hmac.new(k, m, hashlib.sha256).hexdigest())
            """
        let result = try Shell.run(["python3", "-c", script], input: Data((lines.joined(separator: "\n") + "\n").utf8))
        try #require(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").map(String.init) == expected)
    }

    @Test("random bytes: the count asked for, and two draws differ")
    func randomBytes() {
        let first = Digests.randomBytes(32)
        let second = Digests.randomBytes(32)
        #expect(first.count == 32 && second.count == 32)
        #expect(Digests.randomBytes(13).count == 13)
        #expect(first != second)
        #expect(Digests.randomBytes(0).isEmpty)
    }
}
