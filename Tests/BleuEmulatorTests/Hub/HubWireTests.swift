import BleuCore
import Foundation
import Testing
@testable import BleuEmulator

/// Random values of every type the hub protocol carries, from a seed.
struct WireSamples {
    var random: SeededRandomNumberGenerator
    /// Where the numbers that name things (managers, streams, channels, receipts, requests)
    /// come from: any value, or a few small ones so that requests meet what earlier ones made.
    var names: ClosedRange<UInt32>?

    init(seed: UInt64, names: ClosedRange<UInt32>? = nil) {
        random = SeededRandomNumberGenerator(seed: seed)
        self.names = names
    }

    /// A number naming a manager, stream or channel.
    mutating func name() -> UInt32 { names.map { UInt32.random(in: $0, using: &random) } ?? u32() }
    /// A number naming a receipt, a passkey request or a request to cancel.
    mutating func name64() -> UInt64 { names.map { UInt64(UInt32.random(in: $0, using: &random)) } ?? u64() }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func bool() -> Bool { Bool.random(using: &random) }
    mutating func byte() -> UInt8 { UInt8.random(in: 0...255, using: &random) }
    mutating func u16() -> UInt16 { UInt16.random(in: 0...UInt16.max, using: &random) }
    mutating func u32() -> UInt32 { UInt32.random(in: 0...UInt32.max, using: &random) }
    mutating func u64() -> UInt64 { UInt64.random(in: 0...UInt64.max, using: &random) }
    mutating func data() -> Data { Data((0..<int(0...40)).map { _ in byte() }) }
    mutating func string() -> String { ["", "Thermo", "café ☕︎", String(repeating: "x", count: int(0...30))][int(0...3)] }
    mutating func uuid() -> UUID { UUID(uuid: (byte(), byte(), byte(), byte(), byte(), byte(), byte(), byte(), byte(), byte(), byte(), byte(), byte(), byte(), byte(), byte())) }
    mutating func bt() -> BluetoothUUID { bool() ? BluetoothUUID(u16()) : BluetoothUUID(uuid: uuid()) }
    mutating func list<T>(_ make: (inout WireSamples) -> T) -> [T] { (0..<int(0...3)).map { _ in make(&self) } }
    mutating func maybe<T>(_ make: (inout WireSamples) -> T) -> T? { bool() ? make(&self) : nil }
    mutating func pick<T>(_ values: [T]) -> T { values[int(0...values.count - 1)] }
    mutating func duration() -> Duration { .nanoseconds(Int64(int(0...10_000_000_000))) }

    mutating func state() -> ManagerState { pick(ManagerState.allCases) }
    mutating func level() -> SecurityLevel { pick(SecurityLevel.allCases) }
    mutating func writeType() -> WriteType { pick(WriteType.allCases) }
    mutating func reason() -> DisconnectReason { DisconnectReason(hciCode: byte()) }
    mutating func scanOptions() -> ScanOptions {
        ScanOptions(services: maybe { $0.list { $0.bt() } }, allowDuplicates: bool(), solicitedServices: list { $0.bt() })
    }
    mutating func structure() -> ADStructure {
        switch int(0...9) {
        case 0: .flags(AdvertisingFlags(rawValue: byte()))
        case 1: .serviceUUIDs(list { $0.bt() }, width: pick(BluetoothUUID.Width.allCases), complete: bool())
        case 2: .solicitedServiceUUIDs(list { $0.bt() }, width: pick(BluetoothUUID.Width.allCases))
        case 3: .localName(string(), complete: bool())
        case 4: .txPowerLevel(Int8(bitPattern: byte()))
        case 5: .connectionIntervalRange(minimum: u16(), maximum: u16())
        case 6: .serviceData(bt(), data(), width: pick(BluetoothUUID.Width.allCases))
        case 7: .appearance(u16())
        case 8: .manufacturerData(ManufacturerData(companyID: u16(), data: data()))
        default: .other(type: byte(), data: data())
        }
    }
    mutating func advertising() -> AdvertisingData { AdvertisingData(list { $0.structure() }) }
    mutating func advertisement() -> Advertisement {
        Advertisement(peripheral: uuid(), data: advertising(), rssi: int(-128...127), isConnectable: bool())
    }
    mutating func service() -> RemoteService {
        RemoteService(peripheral: uuid(), uuid: bt(), isPrimary: bool(), handle: u16(), endHandle: u16())
    }
    mutating func characteristic() -> RemoteCharacteristic {
        RemoteCharacteristic(peripheral: uuid(), service: bt(), uuid: bt(), properties: CharacteristicProperties(rawValue: byte()),
                             handle: u16(), valueHandle: u16(), endHandle: u16())
    }
    mutating func descriptor() -> RemoteDescriptor {
        RemoteDescriptor(peripheral: uuid(), characteristic: bt(), characteristicValueHandle: u16(), uuid: bt(), handle: u16())
    }
    mutating func published() -> PublishedCharacteristic {
        PublishedCharacteristic(service: bt(), uuid: bt(), properties: CharacteristicProperties(rawValue: byte()),
                                permissions: AttributePermissions(rawValue: u16()), valueHandle: u16())
    }
    mutating func publishedService() -> PublishedService {
        PublishedService(uuid: bt(), isPrimary: bool(), handle: u16(), endHandle: u16(), characteristics: list { $0.published() })
    }
    mutating func definition() -> ServiceDefinition {
        ServiceDefinition(uuid: bt(), isPrimary: bool(), characteristics: list { samples in
            CharacteristicDefinition(uuid: samples.bt(), properties: CharacteristicProperties(rawValue: samples.byte()),
                                     permissions: AttributePermissions(rawValue: samples.u16()), value: samples.maybe { $0.data() },
                                     descriptors: samples.list { DescriptorDefinition(uuid: $0.bt(), value: $0.data()) })
        }, includedServices: list { $0.bt() })
    }
    mutating func readRequest() -> ReadRequest {
        ReadRequest(id: ATTRequestID(u64()), central: uuid(), characteristic: published(), offset: int(0...512))
    }
    mutating func writeRequests() -> WriteRequests {
        WriteRequests(id: ATTRequestID(u64()), central: uuid(), requests: list { samples in
            WriteRequest(central: samples.uuid(), characteristic: samples.published(), offset: samples.int(0...512), value: samples.data())
        }, needsResponse: bool())
    }
    mutating func error() -> BleuError {
        pick([.cancelled, .notConnected(uuid()), .att(ATTError(byte())), .disconnected(uuid(), reason()),
              .valueTooLong(length: int(0...600), maximum: int(0...600)), .invalidState(.hubConnectionLost(reason: string())),
              .timeout(.read, after: maybe { $0.duration() }), .bluetoothUnavailable(state())])
    }
    mutating func centralEvent() -> CentralEvent {
        switch int(0...6) {
        case 0: .stateChanged(state())
        case 1: .willRestoreState(CentralRestoration(peripherals: list { $0.uuid() }, scanOptions: maybe { $0.scanOptions() },
                                                     subscriptions: list { $0.characteristic() }))
        case 2: .connected(uuid())
        case 3: .disconnected(uuid(), reason())
        case 4: .mtuChanged(uuid(), mtu: int(23...517))
        case 5: .readyToSendWriteWithoutResponse(uuid())
        default: .servicesChanged(uuid())
        }
    }
    mutating func peripheralEvent() -> HubPeripheralEvent {
        switch int(0...10) {
        case 0: .event(.stateChanged(state()))
        case 1: .event(.willRestoreState(PeripheralRestoration(services: list { $0.publishedService() },
                                                              advertisement: maybe { $0.advertising() },
                                                              scanResponse: maybe { $0.advertising() })))
        case 2: .event(.centralConnected(uuid()))
        case 3: .event(.centralDisconnected(uuid(), reason()))
        case 4: .event(.mtuChanged(central: uuid(), mtu: int(23...517)))
        case 5: .event(.readRequest(readRequest()))
        case 6: .event(.writeRequests(writeRequests()))
        case 7: .event(.subscribed(central: uuid(), characteristic: published()))
        case 8: .event(.unsubscribed(central: uuid(), characteristic: published()))
        case 9: .event(.readyToUpdateSubscribers)
        default: .channelOpened(HubChannel(number: u32(), psm: u16(), peer: uuid()))
        }
    }
    mutating func element() -> HubElement {
        switch int(0...3) {
        case 0: .data(data())
        case 1: .advertisement(advertisement())
        case 2: .central(centralEvent())
        default: .peripheral(peripheralEvent())
        }
    }

    mutating func centralCall() -> CentralCall {
        switch int(0...26) {
        case 0: .state
        case 1: .events(stream: name(), push: bool())
        case 2: .scan(scanOptions(), stream: name(), push: bool())
        case 3: .stopScan
        case 4: .connect(uuid(), timeout: maybe { $0.duration() })
        case 5: .cancelConnection(uuid())
        case 6: .isConnected(uuid())
        case 7: .retrievePeripherals(list { $0.uuid() })
        case 8: .retrieveConnectedPeripherals(list { $0.bt() })
        case 9: .discoverServices(maybe { $0.list { $0.bt() } }, on: uuid())
        case 10: .discoverIncludedServices(maybe { $0.list { $0.bt() } }, for: service())
        case 11: .discoverCharacteristics(maybe { $0.list { $0.bt() } }, for: service())
        case 12: .discoverDescriptors(characteristic())
        case 13: .read(characteristic())
        case 14: .write(data(), to: characteristic(), writeType())
        case 15: .canSendWriteWithoutResponse(uuid())
        case 16: .readDescriptor(descriptor())
        case 17: .writeDescriptor(data(), to: descriptor())
        case 18: .subscribe(characteristic(), stream: name(), push: bool())
        case 19: .unsubscribe(characteristic())
        case 20: .attMTU(uuid())
        case 21: .maximumWriteValueLength(uuid(), writeType())
        case 22: .readRSSI(uuid())
        case 23: .securityLevel(uuid())
        case 24: .pair(uuid(), minimum: level())
        case 25: .openL2CAPChannel(psm: u16(), on: uuid())
        default: .setPasskeyHandler(bool())
        }
    }

    mutating func peripheralCall() -> PeripheralCall {
        switch int(0...17) {
        case 0: .state
        case 1: .events(stream: name(), push: bool())
        case 2: .add(definition())
        case 3: .remove(publishedService())
        case 4: .removeAllServices
        case 5: .startAdvertising(advertising(), scanResponse: maybe { $0.advertising() }, connectable: bool())
        case 6: .stopAdvertising
        case 7: .isAdvertising
        case 8: .respondToRead(readRequest(), bool() ? .success(data()) : .failure(ATTError(byte())))
        case 9: .respondToWrite(writeRequests(), bool() ? .success(()) : .failure(ATTError(byte())))
        case 10: .updateValue(data(), for: published(), centrals: maybe { $0.list { $0.uuid() } })
        case 11: .maximumUpdateValueLength(uuid())
        case 12: .securityLevel(uuid())
        case 13: .pair(uuid(), minimum: level())
        case 14: .publishL2CAPChannel(requiresEncryption: bool())
        case 15: .unpublishL2CAPChannel(u16())
        case 16: .disconnect(uuid())
        default: .connectedCentrals
        }
    }

    mutating func request() -> HubRequest {
        switch int(0...11) {
        case 0: .attachCentral(manager: name(), restoreIdentifier: maybe { $0.string() }, mtu: maybe { $0.int(23...517) },
                               device: maybe { $0.string() }, passkeyHandler: bool())
        case 1: .attachPeripheral(manager: name(), restoreIdentifier: maybe { $0.string() }, mtu: maybe { $0.int(23...517) },
                                  device: maybe { $0.string() }, distance: maybe { Double($0.int(0...100)) / 4 })
        case 2: .detach(manager: name())
        case 3: .central(manager: name(), centralCall())
        case 4: .peripheral(manager: name(), peripheralCall())
        case 5: .bus(pick([.setCentralState(manager: name(), state()), .setPeripheralState(manager: name(), state()),
                           .setDistance(manager: name(), Double(int(0...40))), .loseLink(manager: name(), peripheral: uuid()),
                           .removeAllBonds, .bondCount, .trace, .clearTrace]))
        case 6: .next(stream: name())
        case 7: .release(stream: name())
        case 8: .channel(name(), pick([.send(data()), .next, .close]))
        case 9: .handled(receipt: name64())
        case 10: .passkeyEntered(request: name64(), passkey: maybe { $0.u32() })
        default: .cancel(request: name64())
        }
    }

    mutating func value() -> HubValue {
        switch int(0...17) {
        case 0: .none
        case 1: .bool(bool())
        case 2: .int(int(-1000...1000))
        case 3: .optionalInt(maybe { $0.int(0...600) })
        case 4: .data(data())
        case 5: .state(state())
        case 6: .security(maybe { $0.level() })
        case 7: .services(list { $0.service() })
        case 8: .characteristics(list { $0.characteristic() })
        case 9: .descriptors(list { $0.descriptor() })
        case 10: .peripherals(list { KnownPeripheral(id: $0.uuid(), name: $0.maybe { $0.string() }, isConnected: $0.bool()) })
        case 11: .published(publishedService())
        case 12: .psm(u16())
        case 13: .centrals(list { $0.uuid() })
        case 14: .channel(HubChannel(number: u32(), psm: u16(), peer: uuid()))
        case 15: .element(element())
        case 16: .end
        default: .trace(list { samples in
            LinkTraceEvent(sequence: samples.int(0...1000), time: samples.duration(), airStart: samples.maybe { $0.duration() },
                           connection: samples.maybe { $0.int(1...9) },
                           direction: samples.maybe { $0.bool() ? .centralToPeripheral : .peripheralToCentral },
                           kind: samples.pick([.att, .smp, .connected, .fault]), opcode: samples.maybe { $0.byte() },
                           handle: samples.maybe { $0.u16() }, length: samples.maybe { $0.int(0...600) }, detail: samples.string(),
                           pdu: samples.maybe { [UInt8]($0.data()) },
                           endpoints: samples.maybe { LinkTraceEvent.Endpoints(central: $0.u64(), peripheral: $0.u64()) })
        })
        }
    }

    mutating func push() -> HubPush {
        switch int(0...2) {
        case 0: .element(stream: name(), element(), receipt: maybe { $0.u64() })
        case 1: .end(stream: name(), maybe { $0.error() })
        default: .passkeyRequest(id: u64(), manager: name(), PasskeyRequest(peripheral: uuid(), displayedPasskey: u32() % 1_000_000))
        }
    }

    mutating func reply() -> HubReply { bool() ? .success(value()) : .failure(error()) }
}

@Suite("The hub protocol's bytes")
struct HubWireTests {
    static let seed = UInt64(ProcessInfo.processInfo.environment["BLEU_HUB_WIRE_SEED"] ?? "") ?? 0x4855_4221

    @Test("every request, reply and push decodes to what was encoded, and every prefix of it is refused")
    func roundTrip() throws {
        print("HubWireTests seed \(Self.seed) (BLEU_HUB_WIRE_SEED replays it)")
        var samples = WireSamples(seed: Self.seed)
        for _ in 0..<3000 {
            let id = samples.u64()
            let request = samples.request()
            let reply = samples.reply()
            let push = samples.push()
            let frames = [HubProtocol.request(id, request), HubProtocol.reply(id, reply), HubProtocol.push(push)]
            var decoder = HubFrameDecoder()
            let decoded = try decoder.feed(frames.joined())
            try #require(decoded.count == 3)
            #expect(decoded.map(\.0) == [.request, .reply, .push])
            let (requestID, back) = try HubProtocol.decodeRequest(decoded[0].1)
            #expect(requestID == id && back == request, "request \(request)")
            let (replyID, replyBack) = try HubProtocol.decodeReply(decoded[1].1)
            #expect(replyID == id && replyBack == reply, "reply \(reply)")
            #expect(try HubProtocol.decodePush(decoded[2].1) == push, "push \(push)")
            // A payload cut short anywhere is an error, never a crash or a different message.
            let payload = decoded[0].1
            for cut in stride(from: 0, to: payload.count, by: max(1, payload.count / 16)) {
                #expect(throws: PacketDecodingError.self) { try HubProtocol.decodeRequest(Array(payload.prefix(cut))) }
            }
            // And one byte too many is refused too.
            #expect(throws: PacketDecodingError.self) { try HubProtocol.decodePush(decoded[2].1 + [0]) }
        }
    }

    @Test("random bytes never crash a decoder; a list longer than its bytes is refused before allocating")
    func garbage() throws {
        var samples = WireSamples(seed: Self.seed ^ 0xFF)
        for _ in 0..<20_000 {
            let bytes = (0..<samples.int(0...64)).map { _ in samples.byte() }
            _ = try? HubProtocol.decodeRequest(bytes)
            _ = try? HubProtocol.decodeReply(bytes)
            _ = try? HubProtocol.decodePush(bytes)
            _ = try? HubProtocol.decodeHello(bytes)
            var decoder = HubFrameDecoder()
            _ = try? decoder.feed(bytes)
        }
        // A retrieve-peripherals call claiming 2³²−1 identifiers in 4 bytes.
        var writer = HubWriter()
        writer.u64(7)
        writer.u8(3)
        writer.u32(1)
        writer.u8(7)
        writer.u32(.max)
        #expect(throws: PacketDecodingError.self) { try HubProtocol.decodeRequest(writer.bytes) }
    }

    @Test("frames cross in any chunks; an empty, oversized or unknown frame is refused")
    func framing() throws {
        var samples = WireSamples(seed: Self.seed ^ 0xF0)
        let requests = (0..<50).map { _ in samples.request() }
        let stream = requests.enumerated().flatMap { HubProtocol.request(UInt64($0.offset + 1), $0.element) }
        var decoder = HubFrameDecoder()
        var decoded: [HubRequest] = []
        var offset = 0
        while offset < stream.count {
            let chunk = samples.int(1...97)
            for frame in try decoder.feed(stream[offset..<min(stream.count, offset + chunk)]) {
                decoded.append(try HubProtocol.decodeRequest(frame.1).request)
            }
            offset += chunk
        }
        #expect(decoded == requests)
        #expect(decoder.pendingCount == 0)

        var empty = HubFrameDecoder()
        #expect(throws: PacketDecodingError.self) { try empty.feed([0, 0, 0, 0]) }
        var oversized = HubFrameDecoder()
        let length = UInt32(HubProtocol.maximumFrameLength + 1)
        #expect(throws: PacketDecodingError.self) {
            try oversized.feed([UInt8(truncatingIfNeeded: length), UInt8(truncatingIfNeeded: length >> 8),
                                UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 24)])
        }
        var unknown = HubFrameDecoder()
        #expect(throws: PacketDecodingError.self) { try unknown.feed([1, 0, 0, 0, 99]) }
    }

    @Test("the handshake: a hello carries the magic, the version and the token; a welcome the configuration")
    func handshake() throws {
        var decoder = HubFrameDecoder()
        let hello = try decoder.feed(HubProtocol.hello(token: "s3cret"))
        #expect(hello.first?.0 == .hello)
        let parsed = try HubProtocol.decodeHello(hello[0].1)
        #expect(parsed.version == HubProtocol.version && parsed.token == "s3cret")
        var bad = hello[0].1
        bad[0] ^= 0xFF
        #expect(throws: PacketDecodingError.self) { try HubProtocol.decodeHello(bad) }

        var configuration = EmulatorConfiguration.default
        configuration.centralMTU = 185
        let welcome = try decoder.feed(HubProtocol.welcome(configuration: configuration, seed: 42))
        let back = try HubProtocol.decodeWelcome(welcome[0].1)
        #expect(back.configuration == configuration && back.seed == 42)
    }
}
