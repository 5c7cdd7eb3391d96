// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    // Apple's FileWrapper comes with the same single import as the bookmark API.
    @_exported import Documents
#endif
