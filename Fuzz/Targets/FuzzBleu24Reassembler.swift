@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBleu24Reassembler(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    fuzzReassembler(.bleu24, UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
