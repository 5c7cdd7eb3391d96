// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import Foundation

/// Decodes bookmark data, adds a string-keyed string value to the target TOC, encodes it again.
func addingStringKey(_ data: Data, key: String, value: String) throws -> Data {
    var record = try BookmarkRecord(decoding: Array(data))
    record[.string(ByteString(key))] = .string(ByteString(value))
    return Data(try record.encoded())
}
