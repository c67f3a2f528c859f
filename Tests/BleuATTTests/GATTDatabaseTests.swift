import BleuCore
import Foundation
import Testing

@testable import BleuATT

/// The attribute table without GAP and GATT (what the emulator's peripherals hold), and the
/// discovery answers the server builds from it.
@Suite("GATT database without the generic services, and discovery answers")
struct GATTDatabaseTests {
    static let service = BluetoothUUID(string: "6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let value = BluetoothUUID(string: "6E400002-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let stream = BluetoothUUID(string: "6E400003-B5A3-F393-E0A9-E50E24DCCA9E")!

    /// A value with a user description, a notifying stream (with its CCCD), an indicated value.
    static let definition = ServiceDefinition(uuid: service, characteristics: [
        CharacteristicDefinition(uuid: value, properties: [.read, .write], permissions: .readWrite,
                                 descriptors: [.userDescription("value")]),
        CharacteristicDefinition(uuid: stream, properties: [.notify, .read], permissions: .readable),
        CharacteristicDefinition(uuid: BluetoothUUID(0x2A1C), properties: [.indicate], permissions: .readable),
    ])

    func answer(_ pdu: ATTPDU, _ database: GATTDatabase, mtu: Int) -> ATTPDU? {
        var connection = ATTServerConnection()
        connection.setMTU(mtu)
        if case .respond(let response) = ATTServer.handle(pdu, database: database, connection: &connection) { return response }
        return nil
    }

    @Test("handles are laid out as a real server does: declaration, value, CCCD, descriptors; never reused while later services keep theirs")
    func layout() throws {
        var database = GATTDatabase(empty: 0xFFFE)
        #expect(database.isEmpty)
        let published = try database.add(Self.definition)
        #expect(published.handle == 1 && published.endHandle == 10)
        #expect(published.characteristics.map(\.valueHandle) == [3, 6, 9])
        #expect(database.attribute(4)?.type == BluetoothUUID.Descriptor.characteristicUserDescription)
        #expect(database.attribute(7)?.type == BluetoothUUID.Descriptor.clientCharacteristicConfiguration)
        #expect(database.attribute(10)?.type == BluetoothUUID.Descriptor.clientCharacteristicConfiguration)
        #expect(database.characteristic(valueHandle: 6)?.uuid == Self.stream)
        #expect(database.characteristic(valueHandle: 7) == nil, "a CCCD is not a characteristic value")
        let second = try database.add(ServiceDefinition(uuid: BluetoothUUID.Service.battery, characteristics: []))
        #expect(second.handle == 11 && second.endHandle == 11)
        try database.remove(published)
        #expect(database.attribute(3) == nil)
        let third = try database.add(ServiceDefinition(uuid: BluetoothUUID.Service.heartRate, characteristics: []))
        #expect(third.handle == 12)
        database.removeAll()
        #expect(database.isEmpty && database.attributes.isEmpty)
        #expect(try database.add(Self.definition).handle == 1)
    }

    @Test("invalid definitions and removals are refused with a reason")
    func validation() throws {
        var database = GATTDatabase(empty: 0xFFFE)
        func refusal(_ definition: ServiceDefinition) -> BleuError? {
            do {
                _ = try database.add(definition)
                return nil
            } catch {
                return error
            }
        }
        let uuid = BluetoothUUID(0x2A00)
        #expect(refusal(ServiceDefinition(uuid: Self.service, characteristics: [
            CharacteristicDefinition(uuid: uuid, properties: [.read, .write], permissions: .readWrite, value: Data([1])),
        ])) == .invalidState(.staticValueNotAllowed(uuid, [.write])))
        #expect(refusal(ServiceDefinition(uuid: Self.service, characteristics: [
            CharacteristicDefinition(uuid: uuid, properties: [.read], permissions: .readable, value: Data(count: 513)),
        ])) == .valueTooLong(length: 513, maximum: 512))
        #expect(refusal(ServiceDefinition(uuid: Self.service, characteristics: [
            CharacteristicDefinition(uuid: uuid, properties: [.read], permissions: .readable,
                                     descriptors: [DescriptorDefinition(uuid: BluetoothUUID(0x2901), value: Data(count: 513))]),
        ])) == .valueTooLong(length: 513, maximum: 512))
        #expect(refusal(ServiceDefinition(uuid: Self.service, characteristics: [
            CharacteristicDefinition(uuid: uuid, properties: [.notify], permissions: .readable,
                                     descriptors: [DescriptorDefinition(uuid: BluetoothUUID.Descriptor.clientCharacteristicConfiguration,
                                                                        value: Data([0, 0]))]),
        ])) == .invalidState(.clientConfigurationDeclared(uuid)))
        #expect(refusal(ServiceDefinition(uuid: Self.service, characteristics: [], includedServices: [BluetoothUUID.Service.battery]))
            == .invalidState(.serviceNotPublished(BluetoothUUID.Service.battery)))
        #expect(refusal(ServiceDefinition(uuid: BluetoothUUID.Service.genericAccess, characteristics: []))
            == .invalidState(.serviceReserved(BluetoothUUID.Service.genericAccess)))
        let many = (0..<33_000).map { _ in CharacteristicDefinition(uuid: uuid, properties: [.read], permissions: .readable) }
        #expect(refusal(ServiceDefinition(uuid: Self.service, characteristics: many)) == .limitReached(.attributes(0xFFFE)))
        #expect(database.isEmpty)

        let battery = try database.add(ServiceDefinition(uuid: BluetoothUUID.Service.battery, characteristics: []))
        let information = try database.add(ServiceDefinition(uuid: BluetoothUUID.Service.deviceInformation, characteristics: [],
                                                             includedServices: [BluetoothUUID.Service.battery]))
        #expect(throws: BleuError.invalidState(.serviceIncluded(BluetoothUUID.Service.battery, by: BluetoothUUID.Service.deviceInformation))) {
            try database.remove(battery)
        }
        try database.remove(information)
        try database.remove(battery)
        #expect(database.isEmpty)
    }

    @Test("discovery answers pack as many entries of one UUID width as fit the MTU")
    func discoveryPacking() throws {
        var database = GATTDatabase(empty: 0xFFFE)
        for i in 0..<4 { _ = try database.add(ServiceDefinition(uuid: BluetoothUUID(UInt16(0x1810 + i)), characteristics: [])) }
        for _ in 0..<2 { _ = try database.add(ServiceDefinition(uuid: BluetoothUUID(uuid: UUID()), characteristics: [])) }
        func groups(from start: UInt16, mtu: Int) -> [ATTPDU.GroupValue]? {
            guard case .readByGroupTypeResponse(let groups)? = answer(
                .readByGroupTypeRequest(startingHandle: start, endingHandle: 0xFFFF, type: BluetoothUUID.Declaration.primaryService),
                database, mtu: mtu) else { return nil }
            return groups
        }
        #expect(groups(from: 1, mtu: 23)?.count == 3, "(23 − 2) / 6 entries of 16-bit UUIDs")
        #expect(groups(from: 4, mtu: 23)?.count == 1, "the 128-bit entry that follows does not join a 16-bit response")
        #expect(groups(from: 5, mtu: 23)?.count == 1, "one 20-byte 128-bit entry fits an MTU of 23")
        #expect(groups(from: 5, mtu: 185)?.count == 2)
        #expect(answer(.readByGroupTypeRequest(startingHandle: 7, endingHandle: 0xFFFF, type: BluetoothUUID.Declaration.primaryService),
                       database, mtu: 23) == .errorResponse(requestOpcode: .readByGroupTypeRequest, handle: 7, error: .attributeNotFound))
        #expect(answer(.readByGroupTypeRequest(startingHandle: 9, endingHandle: 3, type: BluetoothUUID.Declaration.primaryService),
                       database, mtu: 23) == .errorResponse(requestOpcode: .readByGroupTypeRequest, handle: 9, error: .invalidHandle))
        for start: UInt16 in [1, 4, 5] {
            let response = ATTPDU.readByGroupTypeResponse(groups(from: start, mtu: 23) ?? [])
            #expect(response.encodedLength <= 23)
        }
    }

    @Test("Find Information returns every attribute in range with its type, one UUID width per answer")
    func findInformation() throws {
        var database = GATTDatabase(empty: 0xFFFE)
        _ = try database.add(Self.definition)
        func entries(_ start: UInt16, _ end: UInt16) -> [ATTPDU.FindInformationResponse.Entry]? {
            guard case .findInformationResponse(let response)? = answer(
                .findInformationRequest(startingHandle: start, endingHandle: end), database, mtu: 185) else { return nil }
            return response.entries
        }
        #expect(entries(4, 7)?.map(\.handle) == [4, 5], "the 128-bit characteristic value at 6 does not join 16-bit entries")
        #expect(entries(4, 7)?.map(\.type) == [BluetoothUUID.Descriptor.characteristicUserDescription, BluetoothUUID(0x2803)])
        #expect(entries(6, 7)?.map(\.type) == [Self.stream])
        #expect(entries(7, 7)?.map(\.type) == [BluetoothUUID.Descriptor.clientCharacteristicConfiguration])
        #expect(answer(.findInformationRequest(startingHandle: 25, endingHandle: 0xFFFF), database, mtu: 185)
                == .errorResponse(requestOpcode: .findInformationRequest, handle: 25, error: .attributeNotFound))
    }

    @Test("a PDU's length, counted from its layout, is what it encodes to, and what the specification's layouts give")
    func pduLengths() {
        let samples: [(ATTPDU, Int)] = [
            (.readRequest(handle: 3), 3), (.readBlobRequest(handle: 3, offset: 22), 5),
            (.writeRequest(handle: 3, value: Array(repeating: 0, count: 20)), 23),
            (.prepareWriteRequest(handle: 3, offset: 0, value: Array(repeating: 0, count: 18)), 23),
            (.handleValueNotification(handle: 3, value: Array(repeating: 0, count: 244)), 247),
            (.errorResponse(requestOpcode: .readRequest, handle: 3, error: .readNotPermitted), 5),
            (.exchangeMTURequest(clientRxMTU: 185), 3), (.executeWriteRequest(commit: true), 2), (.handleValueConfirmation, 1),
            (.readByGroupTypeResponse([.init(handle: 1, endGroupHandle: 5, value: BluetoothUUID(0x180F).attBytes)]), 8),
            (.findInformationResponse(.init(entries: [.init(handle: 4, type: BluetoothUUID(0x2902))])), 6),
            (.findInformationResponse(.init(entries: [.init(handle: 4, type: Self.stream)])), 20),
            (.readByTypeRequest(startingHandle: 1, endingHandle: 0xFFFF, type: Self.stream), 21),
        ]
        for (pdu, length) in samples {
            #expect(pdu.encodedLength == length, "\(pdu.name)")
            #expect(pdu.encoded.count == length, "\(pdu.name)")
        }
    }
}
