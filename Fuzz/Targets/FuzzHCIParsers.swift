// libFuzzer entry point for BleuHCI's parsers: the input is split by its first byte into a
// parser choice, then fed to that parser (SMP PDUs included; and, for ATT, to the ATT server and the GATT client
// procedures; also the L2CAP credit-based channel's reassembly and the scan collector). Any crash, hang or
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

/// Feeds `bytes` to a fresh credit-based channel as K-frames, each prefixed by its length byte:
/// every SDU it hands out fits our MTU, and it never holds more credits than it gave.
func fuzzChannel(_ bytes: [UInt8]) {
    var channel = CreditBasedChannel(localCID: 0x40, remoteCID: 0x41, localMTU: 64, localMPS: 23, remoteMTU: 64,
                                     remoteMPS: 23, sendCredits: 2, receiveCredits: 8)
    var rest = bytes[...]
    while let length = rest.first {
        let frame = Array(rest.dropFirst().prefix(Int(length)))
        rest = rest.dropFirst(1 + frame.count)
        do {
            if let (sdu, frames) = try channel.receive(frame) {
                precondition(sdu.count <= 64 && frames >= 1, "an SDU over the MTU came out")
                channel.grantReceiveCredits(frames)
            }
            precondition(channel.receiveCredits >= 0 && channel.receiveCredits <= 8, "credits out of bounds")
        } catch {
            return  // the channel is disconnected after a violation
        }
    }
}

/// Feeds `bytes` to a fresh scan collector as reports: [kind, address byte, length, data…]
/// (fresh per input: state kept across inputs holding `Data` reads as leaks to LeakSanitizer,
/// which cannot see pointers in Swift's tagged enum payloads).
func fuzzScan(_ bytes: [UInt8]) {
    var fuzzCollector = ScanCollector(options: ScanOptions(), responseWait: .milliseconds(500), capacity: 8)
    var fuzzClock = Duration.zero
    var rest = bytes[...]
    while rest.count >= 3 {
        let kind = rest[rest.startIndex], address = rest[rest.startIndex + 1], length = Int(rest[rest.startIndex + 2])
        let data = Array(rest.dropFirst(3).prefix(length))
        rest = rest.dropFirst(3 + data.count)
        var report = ScanReport(address: BluetoothAddress(bytes: [0xC0, 0, 0, 0, 0, address]), addressType: .randomDevice,
                                isConnectable: kind & 1 != 0, isScannable: kind & 2 != 0, isScanResponse: kind & 4 != 0,
                                data: data, rssi: -40)
        report.isIncomplete = kind & 8 != 0
        fuzzClock += .milliseconds(Int64(kind >> 4) * 100)
        _ = fuzzCollector.receive(report, now: fuzzClock)
        _ = fuzzCollector.expire(now: fuzzClock)
        precondition(fuzzCollector.storedEntryCount <= 4 * 8, "the scan collector grew past its bound")
    }
}

/// Runs a GATT client procedure (chosen by the first byte) against server answers taken from
/// `bytes` as [length, PDU…] records: every request it sends fits the MTU, a long read never
/// passes 512 bytes, and it ends within one step per answer.
func fuzzProcedure(_ bytes: [UInt8]) {
    guard let choice = bytes.first else { return }
    let kinds: [GATTProcedure.Kind] = [
        .exchangeMTU(clientMTU: 247), .discoverPrimaryServices, .discoverIncludedServices(start: 1, end: 40),
        .discoverCharacteristics(start: 1, end: 40), .discoverDescriptors(valueHandle: 3, end: 40), .read(handle: 3),
        .write(handle: 3, value: Array(repeating: 7, count: 60)), .configure(valueHandle: 3, end: 9, descriptor: nil, bits: 1),
    ]
    let mtu = 23 + Int(choice >> 3)
    var procedure = GATTProcedure(kinds[Int(choice) % kinds.count], mtu: mtu)
    var step = procedure.start()
    var rest = bytes.dropFirst()
    while case .send(let request) = step {
        precondition(request.encodedLength <= mtu, "a request longer than the MTU")
        guard let length = rest.first else { return }
        let answer = Array(rest.dropFirst().prefix(Int(length)))
        rest = rest.dropFirst(1 + answer.count)
        guard let pdu = try? ATTPDU(decoding: answer) else { return }
        step = procedure.receive(pdu)
    }
    if case .finished(.success(.value(let value))) = step {
        precondition(value.count <= 512 + mtu, "a long read ran past 512 bytes")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let selector = data[0]
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch selector % 10 {
    case 0: _ = try? HCIEvent(decoding: bytes)
    case 1: _ = try? HCICommand(decoding: bytes)
    case 2:
        if let packet = try? ACLPacket(decoding: bytes) {
            _ = fuzzReassembler.push(packet)
            precondition(fuzzReassembler.bufferedByteCount <= 4 * 1100, "reassembler grew past its bound")
        }
    case 3 where selector & 0x80 != 0:
        // An SMP PDU: decodes to a typed error or to a PDU that re-encodes to the same bytes
        // (every SMP PDU has one fixed layout).
        if let pdu = try? SMPPDU(decoding: bytes) {
            precondition(pdu.encoded == bytes, "SMP PDU did not re-encode to its bytes")
        }
    case 3: _ = try? L2CAPSignal(decoding: bytes)
    case 4: _ = LESignalingChannel.reply(to: bytes, isCentral: selector & 0x80 != 0)
    case 5 where selector & 0x80 != 0: fuzzProcedure(bytes)
    case 5: _ = try? ATTPDU(decoding: bytes)
    case 6:
        if case .respond(let pdu) = ATTServer.handle(bytes, database: fuzzDatabase, connection: &fuzzConnection) {
            precondition(pdu.encoded.count <= fuzzConnection.mtu, "ATT response longer than the MTU")
        }
    case 7:
        if (try? fuzzDeframer.push(bytes)) == nil { fuzzDeframer.reset() }
        precondition(fuzzDeframer.bufferedByteCount <= 65_540, "H4 deframer grew past one packet")
    case 8: fuzzChannel(bytes)
    default: fuzzScan(bytes)
    }
    // A decoded value re-encodes to something that decodes to the same value.
    if selector % 10 == 5, selector & 0x80 == 0, let pdu = try? ATTPDU(decoding: bytes) {
        precondition((try? ATTPDU(decoding: pdu.encoded)) == pdu, "ATT PDU did not round-trip")
        precondition(pdu.encodedLength == pdu.encoded.count, "a PDU's counted length is not its encoded length")
    }
    return 0
}
