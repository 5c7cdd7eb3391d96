// SPDX-License-Identifier: Apache-2.0
// Digests: SHA-256 and HMAC-SHA256 from the system's OpenSSL libcrypto. No cryptography is written
// here: these are thin calls into libcrypto (EVP_Digest*, HMAC, CRYPTO_memcmp).
//
// Why libcrypto and not swift-crypto: swift-crypto compiles its own copy of BoringSSL (359 C
// files) into every build of the package, and CI builds the package five times (debug, the
// benchmark smoke run, the static release install, AddressSanitizer, ThreadSanitizer): about half
// of each build. Debian's libcrypto is the same primitives, already built, and links statically
// into the `bookmark` executable (Tools/install).
import COpenSSLCrypto

/// SHA-256 and HMAC-SHA256 (libcrypto), and random key bytes.
package enum Digests {
    /// The size of a SHA-256 digest and of an HMAC-SHA256 code, in bytes.
    package static let size = 32

    /// libcrypto is set up once, before its first use, without reading a configuration file
    /// (`OPENSSL_INIT_NO_LOAD_CONFIG`): by default it would open `openssl.cnf` (or `$OPENSSL_CONF`)
    /// outside the syscall seam and could be told there to load provider modules into the process.
    /// The default provider's SHA-256 needs no configuration.
    static let ready: Bool = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_LOAD_CONFIG), nil) == 1

    /// The SHA-256 of `bytes`.
    package static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var hasher = SHA256Hasher()
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }

    /// The HMAC-SHA256 of `message` under `key`.
    package static func hmacSHA256(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        guard ready else { libcryptoFailed("OPENSSL_init_crypto") }
        var code = [UInt8](repeating: 0, count: size)
        var length: UInt32 = 0
        let made = key.withUnsafeBytes { key in
            message.withUnsafeBytes { message in
                code.withUnsafeMutableBytes { out in
                    HMAC(
                        EVP_sha256(), key.baseAddress, Int32(clamping: key.count),
                        message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count,
                        out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length)
                }
            }
        }
        guard made != nil, length == UInt32(size) else { libcryptoFailed("HMAC") }
        return code
    }

    /// Whether `code` is the HMAC-SHA256 of `message` under `key`, compared in constant time
    /// (`CRYPTO_memcmp`); a code of another length is not.
    package static func isValidHMACSHA256(_ code: [UInt8], for message: [UInt8], key: [UInt8]) -> Bool {
        guard code.count == size else { return false }
        let expected = hmacSHA256(message, key: key)
        return code.withUnsafeBytes { given in
            expected.withUnsafeBytes { CRYPTO_memcmp(given.baseAddress, $0.baseAddress, size) == 0 }
        }
    }

    /// `count` random bytes for a key, from the kernel's CSPRNG (`getrandom(2)`, through the
    /// standard library's `SystemRandomNumberGenerator`, which blocks until the pool is seeded).
    package static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(max(0, count))
        // Eight bytes per draw (each draw is one `getrandom`).
        while bytes.count < count {
            let word: UInt64 = generator.next()
            withUnsafeBytes(of: word) { bytes.append(contentsOf: $0.prefix(count - bytes.count)) }
        }
        return bytes
    }

    /// libcrypto failed to compute a digest with its built-in SHA-256: only when it cannot
    /// allocate, where Swift's own allocations end the process too.
    static func libcryptoFailed(_ call: String) -> Never {
        fatalError("libcrypto: \(call) failed (out of memory?)")
    }
}

/// A SHA-256 computed a piece at a time (`EVP_DigestInit_ex`, `EVP_DigestUpdate`,
/// `EVP_DigestFinal_ex`), for a file read in chunks.
package struct SHA256Hasher: ~Copyable {
    private let context: OpaquePointer

    /// A hasher that has seen no bytes.
    package init() {
        guard Digests.ready, let context = EVP_MD_CTX_new() else { Digests.libcryptoFailed("EVP_MD_CTX_new") }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            EVP_MD_CTX_free(context)
            Digests.libcryptoFailed("EVP_DigestInit_ex")
        }
        self.context = context
    }

    /// Adds `bytes` to the digest.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        guard EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1 else {
            Digests.libcryptoFailed("EVP_DigestUpdate")
        }
    }

    /// The digest of every byte added.
    package consuming func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Digests.size)
        var length: UInt32 = 0
        let done = digest.withUnsafeMutableBytes {
            EVP_DigestFinal_ex(context, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), &length)
        }
        guard done == 1, length == UInt32(Digests.size) else { Digests.libcryptoFailed("EVP_DigestFinal_ex") }
        return digest
    }

    deinit { EVP_MD_CTX_free(context) }
}
