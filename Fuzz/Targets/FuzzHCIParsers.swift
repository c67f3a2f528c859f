// libFuzzer entry point for BleuHCI's parsers: the input is split by its first byte into a
// parser choice, then fed to that parser (and, for ATT, to the ATT server). Any crash, hang or
// unbounded growth is a finding; typed errors are the expected outcome for bad input.

nonisolated(unsafe) var fuzzDatabase: GATTDatabase = {
    var database = GATTDatabase(deviceName: "fuzz")
    _ = try? database.add(ServiceDefinition(uuid: BluetoothUUID(0x180F), characteristics: [
        CharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: [.read, .notify], permissions: .readable),
        CharacteristicDefinition(uuid: BluetoothUUID(0x2A24), properties: [.write, .writeWithoutResponse], permissions: .writeable),
    ]))
    return database
}()
nonisolated(unsafe) var fuzzConnection = ATTServerConnection(maxPreparedWrites: 8)
nonisolated(unsafe) var fuzzReassembler = ACLReassembler(maxPDULength: 1024, maxConnections: 4)
nonisolated(unsafe) var fuzzDeframer = H4Deframer()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let selector = data[0]
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch selector % 8 {
    case 0: _ = try? HCIEvent(decoding: bytes)
    case 1: _ = try? HCICommand(decoding: bytes)
    case 2:
        if let packet = try? ACLPacket(decoding: bytes) {
            _ = fuzzReassembler.push(packet)
            precondition(fuzzReassembler.bufferedByteCount <= 4 * 1100, "reassembler grew past its bound")
        }
    case 3: _ = try? L2CAPSignal(decoding: bytes)
    case 4: _ = LESignalingChannel.reply(to: bytes, isCentral: selector & 0x80 != 0)
    case 5: _ = try? ATTPDU(decoding: bytes)
    case 6:
        if case .respond(let pdu) = ATTServer.handle(bytes, database: fuzzDatabase, connection: &fuzzConnection) {
            precondition(pdu.encoded.count <= fuzzConnection.mtu, "ATT response longer than the MTU")
        }
    default:
        if (try? fuzzDeframer.push(bytes)) == nil { fuzzDeframer.reset() }
        precondition(fuzzDeframer.bufferedByteCount <= 65_540, "H4 deframer grew past one packet")
    }
    // A decoded value re-encodes to something that decodes to the same value.
    if selector % 8 == 5, let pdu = try? ATTPDU(decoding: bytes) {
        precondition((try? ATTPDU(decoding: pdu.encoded)) == pdu, "ATT PDU did not round-trip")
    }
    return 0
}
