import BleuCore
import Foundation

// The layouts of BleuCore's values in the hub protocol. Enums write one tag byte, then their
// payload; an unknown tag is refused.

extension HubWriter {
    mutating func bluetoothUUID(_ value: BluetoothUUID) { uuid(value.uuid) }
    mutating func duration(_ value: Duration) {
        i64(value.components.seconds)
        i64(value.components.attoseconds)
    }
    /// BleuCore's errors cross as their `Codable` form (rare, and every case with its typed
    /// payload).
    mutating func error(_ error: BleuError) {
        // A BleuError always encodes: its payloads are plain values.
        data((try? JSONEncoder().encode(error)) ?? Data())
    }
}

extension BleuError {
    /// Any error as it crosses to a client: itself when it is a BleuError (an ATTError as
    /// ``att(_:)``), else a platform error carrying its type and description.
    init(crossing error: any Error) {
        self = error as? BleuError ?? (error as? ATTError).map(BleuError.att)
            ?? .invalidState(.platform(.init(domain: "\(type(of: error))", code: 0, message: "\(error)")))
    }
}

extension HubReader {
    mutating func bluetoothUUID() throws(PacketDecodingError) -> BluetoothUUID { BluetoothUUID(uuid: try uuid()) }
    mutating func duration() throws(PacketDecodingError) -> Duration {
        let seconds = try i64()
        let attoseconds = try i64()
        guard attoseconds > -1_000_000_000_000_000_000, attoseconds < 1_000_000_000_000_000_000 else {
            throw invalid("attoseconds", Int(clamping: attoseconds))
        }
        return Duration(secondsComponent: seconds, attosecondsComponent: attoseconds)
    }
    mutating func error() throws(PacketDecodingError) -> BleuError {
        let json = try data()
        do {
            return try JSONDecoder().decode(BleuError.self, from: json)
        } catch {
            throw invalid("error", json.count)
        }
    }
    mutating func tag(_ field: String, below count: UInt8) throws(PacketDecodingError) -> UInt8 {
        let tag = try u8()
        guard tag < count else { throw invalid(field, Int(tag)) }
        return tag
    }
}

extension ManagerState: HubCodable {
    private static let order: [ManagerState] = [.unknown, .resetting, .unsupported, .unauthorized, .poweredOff, .poweredOn]

    func encode(to writer: inout HubWriter) { writer.u8(UInt8(Self.order.firstIndex(of: self)!)) }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        self = Self.order[Int(try reader.tag("manager state", below: UInt8(Self.order.count)))]
    }
}

extension SecurityLevel: HubCodable {
    func encode(to writer: inout HubWriter) { writer.u8(UInt8(rawValue)) }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        let raw = try reader.u8()
        guard let level = SecurityLevel(rawValue: Int(raw)) else { throw reader.invalid("security level", Int(raw)) }
        self = level
    }
}

extension WriteType: HubCodable {
    func encode(to writer: inout HubWriter) { writer.bool(self == .withResponse) }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        self = try reader.bool() ? .withResponse : .withoutResponse
    }
}

extension DisconnectReason: HubCodable {
    func encode(to writer: inout HubWriter) { writer.u8(hciCode) }
    init(from reader: inout HubReader) throws(PacketDecodingError) { self.init(hciCode: try reader.u8()) }
}

extension ATTError: HubCodable {
    func encode(to writer: inout HubWriter) { writer.u8(rawValue) }
    init(from reader: inout HubReader) throws(PacketDecodingError) { self.init(rawValue: try reader.u8()) }
}

extension ScanOptions: HubCodable {
    func encode(to writer: inout HubWriter) {
        writer.optional(services) { $0.list($1) { $0.bluetoothUUID($1) } }
        writer.bool(allowDuplicates)
        writer.list(solicitedServices) { $0.bluetoothUUID($1) }
    }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        let services = try reader.optional { reader throws(PacketDecodingError) in
            try reader.list { reader throws(PacketDecodingError) in try reader.bluetoothUUID() }
        }
        let duplicates = try reader.bool()
        let solicited = try reader.list { reader throws(PacketDecodingError) in try reader.bluetoothUUID() }
        self.init(services: services, allowDuplicates: duplicates, solicitedServices: solicited)
    }
}

extension ADStructure: HubCodable {
    func encode(to writer: inout HubWriter) {
        switch self {
        case .flags(let flags):
            writer.u8(0); writer.u8(flags.rawValue)
        case .serviceUUIDs(let uuids, let width, let complete):
            writer.u8(1); writer.list(uuids) { $0.bluetoothUUID($1) }; writer.value(width); writer.bool(complete)
        case .solicitedServiceUUIDs(let uuids, let width):
            writer.u8(2); writer.list(uuids) { $0.bluetoothUUID($1) }; writer.value(width)
        case .localName(let name, let complete):
            writer.u8(3); writer.string(name); writer.bool(complete)
        case .txPowerLevel(let level):
            writer.u8(4); writer.u8(UInt8(bitPattern: level))
        case .connectionIntervalRange(let minimum, let maximum):
            writer.u8(5); writer.u16(minimum); writer.u16(maximum)
        case .serviceData(let uuid, let data, let width):
            writer.u8(6); writer.bluetoothUUID(uuid); writer.data(data); writer.value(width)
        case .appearance(let value):
            writer.u8(7); writer.u16(value)
        case .manufacturerData(let manufacturer):
            writer.u8(8); writer.u16(manufacturer.companyID); writer.data(manufacturer.data)
        case .other(let type, let data):
            writer.u8(9); writer.u8(type); writer.data(data)
        }
    }

    init(from reader: inout HubReader) throws(PacketDecodingError) {
        func uuids(_ reader: inout HubReader) throws(PacketDecodingError) -> [BluetoothUUID] {
            try reader.list { reader throws(PacketDecodingError) in try reader.bluetoothUUID() }
        }
        switch try reader.tag("AD structure", below: 10) {
        case 0: self = .flags(AdvertisingFlags(rawValue: try reader.u8()))
        case 1: self = .serviceUUIDs(try uuids(&reader), width: try reader.value(), complete: try reader.bool())
        case 2: self = .solicitedServiceUUIDs(try uuids(&reader), width: try reader.value())
        case 3: self = .localName(try reader.string(), complete: try reader.bool())
        case 4: self = .txPowerLevel(Int8(bitPattern: try reader.u8()))
        case 5: self = .connectionIntervalRange(minimum: try reader.u16(), maximum: try reader.u16())
        case 6: self = .serviceData(try reader.bluetoothUUID(), try reader.data(), width: try reader.value())
        case 7: self = .appearance(try reader.u16())
        case 8: self = .manufacturerData(ManufacturerData(companyID: try reader.u16(), data: try reader.data()))
        default: self = .other(type: try reader.u8(), data: try reader.data())
        }
    }
}

extension BluetoothUUID.Width: HubCodable {
    func encode(to writer: inout HubWriter) { writer.u8(UInt8(byteCount)) }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        let count = try reader.u8()
        guard let width = Self.allCases.first(where: { $0.byteCount == Int(count) }) else { throw reader.invalid("UUID width", Int(count)) }
        self = width
    }
}

extension AdvertisingData: HubCodable {
    func encode(to writer: inout HubWriter) { writer.list(structures) }
    init(from reader: inout HubReader) throws(PacketDecodingError) { self.init(try reader.list(ADStructure.self)) }
}

extension Advertisement: HubCodable {
    func encode(to writer: inout HubWriter) {
        writer.uuid(peripheral); writer.value(data); writer.int(rssi); writer.bool(isConnectable)
    }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        self.init(peripheral: try reader.uuid(), data: try reader.value(), rssi: try reader.int(in: -128...127),
                  isConnectable: try reader.bool())
    }
}

extension KnownPeripheral: HubCodable {
    func encode(to writer: inout HubWriter) {
        writer.uuid(id); writer.optional(name) { $0.string($1) }; writer.bool(isConnected)
    }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        self.init(id: try reader.uuid(), name: try reader.optional { reader throws(PacketDecodingError) in try reader.string() },
                  isConnected: try reader.bool())
    }
}

extension RemoteService: HubCodable {
    func encode(to writer: inout HubWriter) {
        writer.uuid(peripheral); writer.bluetoothUUID(uuid); writer.bool(isPrimary); writer.u16(handle); writer.u16(endHandle)
    }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        self.init(peripheral: try reader.uuid(), uuid: try reader.bluetoothUUID(), isPrimary: try reader.bool(),
                  handle: try reader.u16(), endHandle: try reader.u16())
    }
}

extension RemoteCharacteristic: HubCodable {
    func encode(to writer: inout HubWriter) {
        writer.uuid(peripheral); writer.bluetoothUUID(service); writer.bluetoothUUID(uuid); writer.u8(properties.rawValue)
        writer.u16(handle); writer.u16(valueHandle); writer.u16(endHandle)
    }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        self.init(peripheral: try reader.uuid(), service: try reader.bluetoothUUID(), uuid: try reader.bluetoothUUID(),
                  properties: CharacteristicProperties(rawValue: try reader.u8()), handle: try reader.u16(),
                  valueHandle: try reader.u16(), endHandle: try reader.u16())
    }
}

extension RemoteDescriptor: HubCodable {
    func encode(to writer: inout HubWriter) {
        writer.uuid(peripheral); writer.bluetoothUUID(characteristic); writer.u16(characteristicValueHandle)
        writer.bluetoothUUID(uuid); writer.u16(handle)
    }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        self.init(peripheral: try reader.uuid(), characteristic: try reader.bluetoothUUID(),
                  characteristicValueHandle: try reader.u16(), uuid: try reader.bluetoothUUID(), handle: try reader.u16())
    }
}

extension DescriptorDefinition: HubCodable {
    func encode(to writer: inout HubWriter) { writer.bluetoothUUID(uuid); writer.data(value) }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        self.init(uuid: try reader.bluetoothUUID(), value: try reader.data())
    }
}

extension CharacteristicDefinition: HubCodable {
    func encode(to writer: inout HubWriter) {
        writer.bluetoothUUID(uuid); writer.u8(properties.rawValue); writer.u16(permissions.rawValue)
        writer.optional(value) { $0.data($1) }; writer.list(descriptors)
    }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        self.init(uuid: try reader.bluetoothUUID(), properties: CharacteristicProperties(rawValue: try reader.u8()),
                  permissions: AttributePermissions(rawValue: try reader.u16()),
                  value: try reader.optional { reader throws(PacketDecodingError) in try reader.data() },
                  descriptors: try reader.list())
    }
}

extension ServiceDefinition: HubCodable {
    func encode(to writer: inout HubWriter) {
        writer.bluetoothUUID(uuid); writer.bool(isPrimary); writer.list(characteristics)
        writer.list(includedServices) { $0.bluetoothUUID($1) }
    }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        self.init(uuid: try reader.bluetoothUUID(), isPrimary: try reader.bool(), characteristics: try reader.list(),
                  includedServices: try reader.list { reader throws(PacketDecodingError) in try reader.bluetoothUUID() })
    }
}

extension PublishedCharacteristic: HubCodable {
    func encode(to writer: inout HubWriter) {
        writer.bluetoothUUID(service); writer.bluetoothUUID(uuid); writer.u8(properties.rawValue)
        writer.u16(permissions.rawValue); writer.u16(valueHandle)
    }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        self.init(service: try reader.bluetoothUUID(), uuid: try reader.bluetoothUUID(),
                  properties: CharacteristicProperties(rawValue: try reader.u8()),
                  permissions: AttributePermissions(rawValue: try reader.u16()), valueHandle: try reader.u16())
    }
}

extension PublishedService: HubCodable {
    func encode(to writer: inout HubWriter) {
        writer.bluetoothUUID(uuid); writer.bool(isPrimary); writer.u16(handle); writer.u16(endHandle); writer.list(characteristics)
    }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        self.init(uuid: try reader.bluetoothUUID(), isPrimary: try reader.bool(), handle: try reader.u16(),
                  endHandle: try reader.u16(), characteristics: try reader.list())
    }
}

extension ReadRequest: HubCodable {
    func encode(to writer: inout HubWriter) {
        writer.u64(id.rawValue); writer.uuid(central); writer.value(characteristic); writer.int(offset)
    }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        self.init(id: ATTRequestID(try reader.u64()), central: try reader.uuid(), characteristic: try reader.value(),
                  offset: try reader.int(in: 0...Int(UInt16.max)))
    }
}

extension WriteRequest: HubCodable {
    func encode(to writer: inout HubWriter) {
        writer.uuid(central); writer.value(characteristic); writer.int(offset); writer.data(value)
    }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        self.init(central: try reader.uuid(), characteristic: try reader.value(), offset: try reader.int(in: 0...Int(UInt16.max)),
                  value: try reader.data())
    }
}

extension WriteRequests: HubCodable {
    func encode(to writer: inout HubWriter) {
        writer.u64(id.rawValue); writer.uuid(central); writer.list(requests); writer.bool(needsResponse)
    }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        self.init(id: ATTRequestID(try reader.u64()), central: try reader.uuid(), requests: try reader.list(),
                  needsResponse: try reader.bool())
    }
}

extension CentralRestoration: HubCodable {
    func encode(to writer: inout HubWriter) {
        writer.list(peripherals) { $0.uuid($1) }; writer.optional(scanOptions); writer.list(subscriptions)
    }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        self.init(peripherals: try reader.list { reader throws(PacketDecodingError) in try reader.uuid() },
                  scanOptions: try reader.optional(), subscriptions: try reader.list())
    }
}

extension PeripheralRestoration: HubCodable {
    func encode(to writer: inout HubWriter) {
        writer.list(services); writer.optional(advertisement); writer.optional(scanResponse)
    }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        self.init(services: try reader.list(), advertisement: try reader.optional(), scanResponse: try reader.optional())
    }
}

extension PasskeyRequest: HubCodable {
    func encode(to writer: inout HubWriter) { writer.uuid(peripheral); writer.u32(displayedPasskey) }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        self.init(peripheral: try reader.uuid(), displayedPasskey: try reader.u32())
    }
}

extension CentralEvent: HubCodable {
    func encode(to writer: inout HubWriter) {
        switch self {
        case .stateChanged(let state): writer.u8(0); writer.value(state)
        case .willRestoreState(let restoration): writer.u8(1); writer.value(restoration)
        case .connected(let peripheral): writer.u8(2); writer.uuid(peripheral)
        case .disconnected(let peripheral, let reason): writer.u8(3); writer.uuid(peripheral); writer.value(reason)
        case .mtuChanged(let peripheral, let mtu): writer.u8(4); writer.uuid(peripheral); writer.int(mtu)
        case .readyToSendWriteWithoutResponse(let peripheral): writer.u8(5); writer.uuid(peripheral)
        case .servicesChanged(let peripheral): writer.u8(6); writer.uuid(peripheral)
        }
    }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        switch try reader.tag("central event", below: 7) {
        case 0: self = .stateChanged(try reader.value())
        case 1: self = .willRestoreState(try reader.value())
        case 2: self = .connected(try reader.uuid())
        case 3: self = .disconnected(try reader.uuid(), try reader.value())
        case 4: self = .mtuChanged(try reader.uuid(), mtu: try reader.int(in: 23...517))
        case 5: self = .readyToSendWriteWithoutResponse(try reader.uuid())
        default: self = .servicesChanged(try reader.uuid())
        }
    }
}
