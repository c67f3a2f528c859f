@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCompactReassembler(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    fuzzReassembler(.compact, UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
