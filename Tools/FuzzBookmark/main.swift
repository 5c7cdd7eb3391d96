// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry point for the BookmarkFormat decoders and FileWrapper's serialised form (built
// with --sanitize=fuzzer). Every decoder must either refuse the input (a typed error, or nil) or
// return a value that re-encodes and decodes back to an equal value; anything else traps, and
// libFuzzer records the input. Inputs starting with "SBFW" go to the wrapper decoder.
import BookmarkFormat
import Documents
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func bookmarkFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if bytes.starts(with: Array("SBFW".utf8)) {
        wrapperFuzzOneInput(bytes)
        return 0
    }
    // Recognises bookmark data, alias files, alias records and base64 of any of them.
    guard let source = try? BookmarkSource(decoding: bytes) else { return 0 }
    // Through the public API only: records compare every TOC, key, item type and number subtype.
    let record = source.record
    guard let again = try? BookmarkRecord(decoding: record.encoded()), again == record else {
        fatalError("bookmark round trip differs")
    }
    switch source.container {
    case .aliasFile:
        guard let file = try? AliasFile(decoding: AliasFile(record: record).encoded()), file.record == record else {
            fatalError("alias file round trip differs")
        }
    case .aliasRecord, .bookmarkData:
        // An alias record may be refused on re-encoding only when it grows past 65,535 bytes
        // (a record without an end tag gains 4 bytes).
        if let alias = source.aliasRecord, let encoded = try? alias.encoded() {
            guard let back = try? AliasRecord(decoding: encoded), back == alias else {
                fatalError("alias record round trip differs")
            }
        }
    }
    // The JSON dump costs ten times the decoding; exercise it on one input length in sixteen
    // (Apple's blobs are 4-byte multiples, so most seeds skip it) to keep the run fast;
    // libFuzzer still steers towards the lengths whose dumps add coverage.
    if size % 16 == 5 { _ = BookmarkInspection(source: source).jsonText }
    return 0
}

/// FileWrapper's serialised form: refused, or decoded to a tree whose encoding decodes to the
/// same encoding again.
func wrapperFuzzOneInput(_ bytes: [UInt8]) {
    guard let wrapper = FileWrapper(serializedRepresentation: Data(bytes)) else { return }
    guard let encoded = wrapper.serializedRepresentation else { fatalError("a decoded wrapper did not encode") }
    guard let again = FileWrapper(serializedRepresentation: encoded), again.serializedRepresentation == encoded else {
        fatalError("wrapper round trip differs")
    }
}
