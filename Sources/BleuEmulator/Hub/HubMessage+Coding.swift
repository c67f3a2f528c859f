import BleuCore
import Foundation

// The layouts of the hub's messages: one tag byte per case, in the order the cases are
// declared, then the payload.

private extension HubWriter {
    mutating func uuids(_ value: [BluetoothUUID]) { list(value) { $0.bluetoothUUID($1) } }
    mutating func filter(_ value: [BluetoothUUID]?) { optional(value) { $0.uuids($1) } }
    mutating func optionalInt(_ value: Int?) { optional(value) { $0.int($1) } }
    mutating func optionalString(_ value: String?) { optional(value) { $0.string($1) } }
    mutating func peers(_ value: [UUID]) { list(value) { $0.uuid($1) } }
}

private extension HubReader {
    mutating func uuids() throws(PacketDecodingError) -> [BluetoothUUID] {
        try list { reader throws(PacketDecodingError) in try reader.bluetoothUUID() }
    }
    mutating func filter() throws(PacketDecodingError) -> [BluetoothUUID]? {
        try optional { reader throws(PacketDecodingError) in try reader.uuids() }
    }
    mutating func optionalInt(in range: ClosedRange<Int>) throws(PacketDecodingError) -> Int? {
        try optional { reader throws(PacketDecodingError) in try reader.int(in: range) }
    }
    mutating func optionalString() throws(PacketDecodingError) -> String? {
        try optional { reader throws(PacketDecodingError) in try reader.string() }
    }
    mutating func peers() throws(PacketDecodingError) -> [UUID] {
        try list { reader throws(PacketDecodingError) in try reader.uuid() }
    }
}

/// MTUs a client may ask for; the engine clamps them further.
private let mtuRange = 0...0xFFFF

extension CentralCall: HubCodable {
    func encode(to w: inout HubWriter) {
        switch self {
        case .state: w.u8(0)
        case .events(let stream, let push): w.u8(1); w.u32(stream); w.bool(push)
        case .scan(let options, let stream, let push): w.u8(2); w.value(options); w.u32(stream); w.bool(push)
        case .stopScan: w.u8(3)
        case .connect(let peer, let timeout): w.u8(4); w.uuid(peer); w.optional(timeout) { $0.duration($1) }
        case .cancelConnection(let peer): w.u8(5); w.uuid(peer)
        case .isConnected(let peer): w.u8(6); w.uuid(peer)
        case .retrievePeripherals(let peers): w.u8(7); w.peers(peers)
        case .retrieveConnectedPeripherals(let services): w.u8(8); w.uuids(services)
        case .discoverServices(let filter, let peer): w.u8(9); w.filter(filter); w.uuid(peer)
        case .discoverIncludedServices(let filter, let service): w.u8(10); w.filter(filter); w.value(service)
        case .discoverCharacteristics(let filter, let service): w.u8(11); w.filter(filter); w.value(service)
        case .discoverDescriptors(let characteristic): w.u8(12); w.value(characteristic)
        case .read(let characteristic): w.u8(13); w.value(characteristic)
        case .write(let value, let characteristic, let type): w.u8(14); w.data(value); w.value(characteristic); w.value(type)
        case .canSendWriteWithoutResponse(let peer): w.u8(15); w.uuid(peer)
        case .readDescriptor(let descriptor): w.u8(16); w.value(descriptor)
        case .writeDescriptor(let value, let descriptor): w.u8(17); w.data(value); w.value(descriptor)
        case .subscribe(let characteristic, let stream, let push): w.u8(18); w.value(characteristic); w.u32(stream); w.bool(push)
        case .unsubscribe(let characteristic): w.u8(19); w.value(characteristic)
        case .attMTU(let peer): w.u8(20); w.uuid(peer)
        case .maximumWriteValueLength(let peer, let type): w.u8(21); w.uuid(peer); w.value(type)
        case .readRSSI(let peer): w.u8(22); w.uuid(peer)
        case .securityLevel(let peer): w.u8(23); w.uuid(peer)
        case .pair(let peer, let minimum): w.u8(24); w.uuid(peer); w.value(minimum)
        case .openL2CAPChannel(let psm, let peer): w.u8(25); w.u16(psm); w.uuid(peer)
        case .setPasskeyHandler(let on): w.u8(26); w.bool(on)
        }
    }

    init(from r: inout HubReader) throws(PacketDecodingError) {
        switch try r.tag("central call", below: 27) {
        case 0: self = .state
        case 1: self = .events(stream: try r.u32(), push: try r.bool())
        case 2: self = .scan(try r.value(), stream: try r.u32(), push: try r.bool())
        case 3: self = .stopScan
        case 4: self = .connect(try r.uuid(), timeout: try r.optional { r throws(PacketDecodingError) in try r.duration() })
        case 5: self = .cancelConnection(try r.uuid())
        case 6: self = .isConnected(try r.uuid())
        case 7: self = .retrievePeripherals(try r.peers())
        case 8: self = .retrieveConnectedPeripherals(try r.uuids())
        case 9: self = .discoverServices(try r.filter(), on: try r.uuid())
        case 10: self = .discoverIncludedServices(try r.filter(), for: try r.value())
        case 11: self = .discoverCharacteristics(try r.filter(), for: try r.value())
        case 12: self = .discoverDescriptors(try r.value())
        case 13: self = .read(try r.value())
        case 14: self = .write(try r.data(), to: try r.value(), try r.value())
        case 15: self = .canSendWriteWithoutResponse(try r.uuid())
        case 16: self = .readDescriptor(try r.value())
        case 17: self = .writeDescriptor(try r.data(), to: try r.value())
        case 18: self = .subscribe(try r.value(), stream: try r.u32(), push: try r.bool())
        case 19: self = .unsubscribe(try r.value())
        case 20: self = .attMTU(try r.uuid())
        case 21: self = .maximumWriteValueLength(try r.uuid(), try r.value())
        case 22: self = .readRSSI(try r.uuid())
        case 23: self = .securityLevel(try r.uuid())
        case 24: self = .pair(try r.uuid(), minimum: try r.value())
        case 25: self = .openL2CAPChannel(psm: try r.u16(), on: try r.uuid())
        default: self = .setPasskeyHandler(try r.bool())
        }
    }
}

extension PeripheralCall: HubCodable {
    func encode(to w: inout HubWriter) {
        switch self {
        case .state: w.u8(0)
        case .events(let stream, let push): w.u8(1); w.u32(stream); w.bool(push)
        case .add(let service): w.u8(2); w.value(service)
        case .remove(let service): w.u8(3); w.value(service)
        case .removeAllServices: w.u8(4)
        case .startAdvertising(let data, let response, let connectable):
            w.u8(5); w.value(data); w.optional(response); w.bool(connectable)
        case .stopAdvertising: w.u8(6)
        case .isAdvertising: w.u8(7)
        case .respondToRead(let request, let result):
            w.u8(8); w.value(request)
            switch result {
            case .success(let value): w.bool(true); w.data(value)
            case .failure(let error): w.bool(false); w.value(error)
            }
        case .respondToWrite(let request, let result):
            w.u8(9); w.value(request)
            switch result {
            case .success: w.bool(true)
            case .failure(let error): w.bool(false); w.value(error)
            }
        case .updateValue(let value, let characteristic, let centrals):
            w.u8(10); w.data(value); w.value(characteristic); w.optional(centrals) { $0.peers($1) }
        case .maximumUpdateValueLength(let central): w.u8(11); w.uuid(central)
        case .securityLevel(let central): w.u8(12); w.uuid(central)
        case .pair(let central, let minimum): w.u8(13); w.uuid(central); w.value(minimum)
        case .publishL2CAPChannel(let encrypted): w.u8(14); w.bool(encrypted)
        case .unpublishL2CAPChannel(let psm): w.u8(15); w.u16(psm)
        case .disconnect(let central): w.u8(16); w.uuid(central)
        case .connectedCentrals: w.u8(17)
        }
    }

    init(from r: inout HubReader) throws(PacketDecodingError) {
        switch try r.tag("peripheral call", below: 18) {
        case 0: self = .state
        case 1: self = .events(stream: try r.u32(), push: try r.bool())
        case 2: self = .add(try r.value())
        case 3: self = .remove(try r.value())
        case 4: self = .removeAllServices
        case 5: self = .startAdvertising(try r.value(), scanResponse: try r.optional(), connectable: try r.bool())
        case 6: self = .stopAdvertising
        case 7: self = .isAdvertising
        case 8:
            let request: ReadRequest = try r.value()
            self = .respondToRead(request, try r.bool() ? .success(try r.data()) : .failure(try r.value()))
        case 9:
            let request: WriteRequests = try r.value()
            self = .respondToWrite(request, try r.bool() ? .success(()) : .failure(try r.value()))
        case 10:
            self = .updateValue(try r.data(), for: try r.value(),
                                centrals: try r.optional { r throws(PacketDecodingError) in try r.peers() })
        case 11: self = .maximumUpdateValueLength(try r.uuid())
        case 12: self = .securityLevel(try r.uuid())
        case 13: self = .pair(try r.uuid(), minimum: try r.value())
        case 14: self = .publishL2CAPChannel(requiresEncryption: try r.bool())
        case 15: self = .unpublishL2CAPChannel(try r.u16())
        case 16: self = .disconnect(try r.uuid())
        default: self = .connectedCentrals
        }
    }
}

extension BusCall: HubCodable {
    func encode(to w: inout HubWriter) {
        switch self {
        case .setCentralState(let manager, let state): w.u8(0); w.u32(manager); w.value(state)
        case .setPeripheralState(let manager, let state): w.u8(1); w.u32(manager); w.value(state)
        case .setDistance(let manager, let meters): w.u8(2); w.u32(manager); w.double(meters)
        case .loseLink(let manager, let peer): w.u8(3); w.u32(manager); w.uuid(peer)
        case .removeAllBonds: w.u8(4)
        case .bondCount: w.u8(5)
        case .trace: w.u8(6)
        case .clearTrace: w.u8(7)
        }
    }

    init(from r: inout HubReader) throws(PacketDecodingError) {
        switch try r.tag("bus call", below: 8) {
        case 0: self = .setCentralState(manager: try r.u32(), try r.value())
        case 1: self = .setPeripheralState(manager: try r.u32(), try r.value())
        case 2: self = .setDistance(manager: try r.u32(), try r.double())
        case 3: self = .loseLink(manager: try r.u32(), peripheral: try r.uuid())
        case 4: self = .removeAllBonds
        case 5: self = .bondCount
        case 6: self = .trace
        default: self = .clearTrace
        }
    }
}

extension ChannelCall: HubCodable {
    func encode(to w: inout HubWriter) {
        switch self {
        case .send(let data): w.u8(0); w.data(data)
        case .next: w.u8(1)
        case .close: w.u8(2)
        case .release(let crossings): w.u8(3); w.u32(crossings)
        }
    }

    init(from r: inout HubReader) throws(PacketDecodingError) {
        switch try r.tag("channel call", below: 4) {
        case 0: self = .send(try r.data())
        case 1: self = .next
        case 2: self = .close
        default: self = .release(crossings: try r.u32())
        }
    }
}

extension HubRequest: HubCodable {
    func encode(to w: inout HubWriter) {
        switch self {
        case .attachCentral(let manager, let restore, let mtu, let device, let passkey):
            w.u8(0); w.u32(manager); w.optionalString(restore); w.optionalInt(mtu); w.optionalString(device); w.bool(passkey)
        case .attachPeripheral(let manager, let restore, let mtu, let device, let distance):
            w.u8(1); w.u32(manager); w.optionalString(restore); w.optionalInt(mtu); w.optionalString(device)
            w.optional(distance) { $0.double($1) }
        case .detach(let manager): w.u8(2); w.u32(manager)
        case .central(let manager, let call): w.u8(3); w.u32(manager); w.value(call)
        case .peripheral(let manager, let call): w.u8(4); w.u32(manager); w.value(call)
        case .bus(let call): w.u8(5); w.value(call)
        case .next(let stream): w.u8(6); w.u32(stream)
        case .release(let stream): w.u8(7); w.u32(stream)
        case .channel(let number, let call): w.u8(8); w.u32(number); w.value(call)
        case .handled(let receipt): w.u8(9); w.u64(receipt)
        case .passkeyEntered(let request, let passkey): w.u8(10); w.u64(request); w.optional(passkey) { $0.u32($1) }
        case .cancel(let request): w.u8(11); w.u64(request)
        }
    }

    init(from r: inout HubReader) throws(PacketDecodingError) {
        switch try r.tag("request", below: 12) {
        case 0:
            self = .attachCentral(manager: try r.u32(), restoreIdentifier: try r.optionalString(),
                                  mtu: try r.optionalInt(in: mtuRange), device: try r.optionalString(), passkeyHandler: try r.bool())
        case 1:
            self = .attachPeripheral(manager: try r.u32(), restoreIdentifier: try r.optionalString(),
                                     mtu: try r.optionalInt(in: mtuRange), device: try r.optionalString(),
                                     distance: try r.optional { r throws(PacketDecodingError) in try r.double() })
        case 2: self = .detach(manager: try r.u32())
        case 3: self = .central(manager: try r.u32(), try r.value())
        case 4: self = .peripheral(manager: try r.u32(), try r.value())
        case 5: self = .bus(try r.value())
        case 6: self = .next(stream: try r.u32())
        case 7: self = .release(stream: try r.u32())
        case 8: self = .channel(try r.u32(), try r.value())
        case 9: self = .handled(receipt: try r.u64())
        case 10: self = .passkeyEntered(request: try r.u64(), passkey: try r.optional { r throws(PacketDecodingError) in try r.u32() })
        default: self = .cancel(request: try r.u64())
        }
    }
}

extension HubPeripheralEvent: HubCodable {
    func encode(to w: inout HubWriter) {
        switch self {
        case .channelOpened(let channel): w.u8(12); w.value(channel)
        case .event(let event):
            switch event {
            case .stateChanged(let state): w.u8(0); w.value(state)
            case .willRestoreState(let restoration): w.u8(1); w.value(restoration)
            case .centralConnected(let central): w.u8(2); w.uuid(central)
            case .centralDisconnected(let central, let reason): w.u8(3); w.uuid(central); w.value(reason)
            case .mtuChanged(let central, let mtu): w.u8(4); w.uuid(central); w.int(mtu)
            case .readRequest(let request): w.u8(5); w.value(request)
            case .writeRequests(let requests): w.u8(6); w.value(requests)
            case .subscribed(let central, let characteristic): w.u8(7); w.uuid(central); w.value(characteristic)
            case .unsubscribed(let central, let characteristic): w.u8(8); w.uuid(central); w.value(characteristic)
            case .readyToUpdateSubscribers: w.u8(9)
            case .l2capChannelOpened:
                preconditionFailure("an opened channel crosses as .channelOpened, with the number the hub gave it")
            }
        }
    }

    init(from r: inout HubReader) throws(PacketDecodingError) {
        switch try r.tag("peripheral event", below: 13) {
        case 0: self = .event(.stateChanged(try r.value()))
        case 1: self = .event(.willRestoreState(try r.value()))
        case 2: self = .event(.centralConnected(try r.uuid()))
        case 3: self = .event(.centralDisconnected(try r.uuid(), try r.value()))
        case 4: self = .event(.mtuChanged(central: try r.uuid(), mtu: try r.int(in: 23...517)))
        case 5: self = .event(.readRequest(try r.value()))
        case 6: self = .event(.writeRequests(try r.value()))
        case 7: self = .event(.subscribed(central: try r.uuid(), characteristic: try r.value()))
        case 8: self = .event(.unsubscribed(central: try r.uuid(), characteristic: try r.value()))
        case 9: self = .event(.readyToUpdateSubscribers)
        case 12: self = .channelOpened(try r.value())
        default: throw r.invalid("peripheral event", 10)
        }
    }
}

extension HubElement: HubCodable {
    func encode(to w: inout HubWriter) {
        switch self {
        case .data(let data): w.u8(0); w.data(data)
        case .advertisement(let advertisement): w.u8(1); w.value(advertisement)
        case .central(let event): w.u8(2); w.value(event)
        case .peripheral(let event): w.u8(3); w.value(event)
        }
    }

    init(from r: inout HubReader) throws(PacketDecodingError) {
        switch try r.tag("stream element", below: 4) {
        case 0: self = .data(try r.data())
        case 1: self = .advertisement(try r.value())
        case 2: self = .central(try r.value())
        default: self = .peripheral(try r.value())
        }
    }
}

extension HubValue: HubCodable {
    func encode(to w: inout HubWriter) {
        switch self {
        case .none: w.u8(0)
        case .bool(let value): w.u8(1); w.bool(value)
        case .int(let value): w.u8(2); w.int(value)
        case .optionalInt(let value): w.u8(3); w.optionalInt(value)
        case .data(let value): w.u8(4); w.data(value)
        case .state(let value): w.u8(5); w.value(value)
        case .security(let value): w.u8(6); w.optional(value)
        case .services(let value): w.u8(7); w.list(value)
        case .characteristics(let value): w.u8(8); w.list(value)
        case .descriptors(let value): w.u8(9); w.list(value)
        case .peripherals(let value): w.u8(10); w.list(value)
        case .published(let value): w.u8(11); w.value(value)
        case .psm(let value): w.u8(12); w.u16(value)
        case .centrals(let value): w.u8(13); w.peers(value)
        case .channel(let value): w.u8(14); w.value(value)
        case .element(let value): w.u8(15); w.value(value)
        case .end: w.u8(16)
        case .trace(let events): w.u8(17); w.list(events)
        }
    }

    init(from r: inout HubReader) throws(PacketDecodingError) {
        switch try r.tag("value", below: 18) {
        case 0: self = .none
        case 1: self = .bool(try r.bool())
        case 2: self = .int(try r.int())
        case 3: self = .optionalInt(try r.optionalInt(in: Int(Int32.min)...Int(Int32.max)))
        case 4: self = .data(try r.data())
        case 5: self = .state(try r.value())
        case 6: self = .security(try r.optional())
        case 7: self = .services(try r.list())
        case 8: self = .characteristics(try r.list())
        case 9: self = .descriptors(try r.list())
        case 10: self = .peripherals(try r.list())
        case 11: self = .published(try r.value())
        case 12: self = .psm(try r.u16())
        case 13: self = .centrals(try r.peers())
        case 14: self = .channel(try r.value())
        case 15: self = .element(try r.value())
        case 16: self = .end
        default: self = .trace(try r.list())
        }
    }
}

extension HubReply: HubCodable {
    func encode(to w: inout HubWriter) {
        switch self {
        case .success(let value): w.u8(0); w.value(value)
        case .failure(let error): w.u8(1); w.error(error)
        }
    }

    init(from r: inout HubReader) throws(PacketDecodingError) {
        self = try r.tag("reply", below: 2) == 0 ? .success(try r.value()) : .failure(try r.error())
    }
}

extension HubPush: HubCodable {
    func encode(to w: inout HubWriter) {
        switch self {
        case .element(let stream, let element, let receipt):
            w.u8(0); w.u32(stream); w.value(element); w.optional(receipt) { $0.u64($1) }
        case .end(let stream, let error):
            w.u8(1); w.u32(stream); w.optional(error) { $0.error($1) }
        case .passkeyRequest(let id, let manager, let request):
            w.u8(2); w.u64(id); w.u32(manager); w.value(request)
        }
    }

    init(from r: inout HubReader) throws(PacketDecodingError) {
        switch try r.tag("push", below: 3) {
        case 0: self = .element(stream: try r.u32(), try r.value(), receipt: try r.optional { r throws(PacketDecodingError) in try r.u64() })
        case 1: self = .end(stream: try r.u32(), try r.optional { r throws(PacketDecodingError) in try r.error() })
        default: self = .passkeyRequest(id: try r.u64(), manager: try r.u32(), try r.value())
        }
    }
}

extension LinkTraceEvent: HubCodable {
    func encode(to w: inout HubWriter) {
        w.int(sequence); w.duration(time); w.optional(airStart) { $0.duration($1) }; w.optionalInt(connection)
        w.optional(direction) { $0.bool($1 == .centralToPeripheral) }
        w.string(kind.rawValue); w.optional(opcode) { $0.u8($1) }; w.optional(handle) { $0.u16($1) }
        w.optionalInt(length); w.string(detail)
        w.optional(pdu) { $0.data($1) }
        w.optional(endpoints) { $0.u64($1.central); $0.u64($1.peripheral) }
    }

    init(from r: inout HubReader) throws(PacketDecodingError) {
        let sequence = try r.int(in: 0...Int(Int64.max))
        let time = try r.duration()
        let airStart = try r.optional { r throws(PacketDecodingError) in try r.duration() }
        let connection = try r.optionalInt(in: 0...Int(Int64.max))
        let direction = try r.optional { r throws(PacketDecodingError) in
            try r.bool() ? Direction.centralToPeripheral : Direction.peripheralToCentral
        }
        let name = try r.string()
        guard let kind = Kind(rawValue: name) else { throw r.invalid("trace event kind", name.utf8.count) }
        self.init(sequence: sequence, time: time, airStart: airStart, connection: connection, direction: direction, kind: kind,
                  opcode: try r.optional { r throws(PacketDecodingError) in try r.u8() },
                  handle: try r.optional { r throws(PacketDecodingError) in try r.u16() },
                  length: try r.optionalInt(in: 0...Int(Int32.max)), detail: try r.string(),
                  pdu: try r.optional { r throws(PacketDecodingError) in try r.bytes() },
                  endpoints: try r.optional { r throws(PacketDecodingError) in Endpoints(central: try r.u64(), peripheral: try r.u64()) })
    }
}
