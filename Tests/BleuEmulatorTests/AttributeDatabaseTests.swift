import BleuCore
import Foundation
import Testing
@testable import BleuEmulator

/// The pure GATT database and access checks.
@Suite("GATT database (pure)")
struct AttributeDatabaseTests {
    @Test("handles are laid out as a real server does: declaration, value, CCCD, descriptors")
    func layout() throws {
        var database = AttributeDatabase()
        let service = try database.add(.test)
        #expect(service.handle == 1)
        #expect(service.endHandle == 24)
        let handles = service.characteristics.map(\.valueHandle)
        #expect(handles == [3, 6, 9, 12, 14, 16, 18, 20, 22, 24])
        guard case .descriptor(let description, _)? = database.attribute(at: 4) else { Issue.record("no descriptor at 4"); return }
        #expect(description.uuid == BluetoothUUID.Descriptor.characteristicUserDescription)
        guard case .configuration? = database.attribute(at: 7) else { Issue.record("no CCCD at 7"); return }
        guard case .configuration? = database.attribute(at: 10) else { Issue.record("no CCCD at 10"); return }
        let second = try database.add(ServiceDefinition(uuid: BluetoothUUID.Service.battery, characteristics: []))
        #expect(second.handle == 25 && second.endHandle == 25)
        try database.remove(service)
        #expect(database.attribute(at: 3) == nil)
        let third = try database.add(ServiceDefinition(uuid: BluetoothUUID.Service.heartRate, characteristics: []))
        #expect(third.handle == 26, "handles are not reused while later services keep theirs")
    }

    @Test("invalid definitions are refused with a reason")
    func validation() {
        var database = AttributeDatabase()
        func refuses(_ definition: ServiceDefinition, _ fragment: String) -> Bool {
            do {
                _ = try database.add(definition)
                return false
            } catch {
                return "\(error)".contains(fragment)
            }
        }
        let uuid = BluetoothUUID(0x2A00)
        #expect(refuses(ServiceDefinition(uuid: TestUUID.service, characteristics: [
            CharacteristicDefinition(uuid: uuid, properties: [.read, .write], permissions: .readWrite, value: Data([1])),
        ]), "static value"))
        #expect(refuses(ServiceDefinition(uuid: TestUUID.service, characteristics: [
            CharacteristicDefinition(uuid: uuid, properties: [.notify], permissions: .readable, value: Data([1])),
        ]), "static value"))
        #expect(refuses(ServiceDefinition(uuid: TestUUID.service, characteristics: [
            CharacteristicDefinition(uuid: uuid, properties: [.read], permissions: .readable, value: Data(count: 513)),
        ]), "513-byte"))
        #expect(refuses(ServiceDefinition(uuid: TestUUID.service, characteristics: [
            CharacteristicDefinition(uuid: uuid, properties: [.notify], permissions: .readable,
                                     descriptors: [DescriptorDefinition(uuid: BluetoothUUID.Descriptor.clientCharacteristicConfiguration, value: Data([0, 0]))]),
        ]), "Client Characteristic Configuration"))
        #expect(refuses(ServiceDefinition(uuid: TestUUID.service, characteristics: [], includedServices: [BluetoothUUID.Service.battery]),
                        "not published"))
        let many = (0..<33_000).map { _ in CharacteristicDefinition(uuid: uuid, properties: [.read], permissions: .readable) }
        #expect(refuses(ServiceDefinition(uuid: TestUUID.service, characteristics: many), "handles left"))
        #expect(database.isEmpty)
    }

    @Test("discovery answers pack as many entries of one UUID width as fit the MTU")
    func discoveryPacking() throws {
        var database = AttributeDatabase()
        for i in 0..<4 { _ = try database.add(ServiceDefinition(uuid: BluetoothUUID(UInt16(0x1800 + i)), characteristics: [])) }
        for _ in 0..<2 { _ = try database.add(ServiceDefinition(uuid: BluetoothUUID(uuid: UUID()), characteristics: [])) }
        guard case .readByGroupTypeResponse(let first) = database.readByGroupType(start: 1, end: 0xFFFF, mtu: 23) else {
            Issue.record("no answer"); return
        }
        #expect(first.count == 3, "(23 − 2) / 6 entries of 16-bit UUIDs")
        guard case .readByGroupTypeResponse(let second) = database.readByGroupType(start: 4, end: 0xFFFF, mtu: 23) else {
            Issue.record("no answer"); return
        }
        #expect(second.count == 1, "the 128-bit entry that follows does not join a 16-bit response")
        guard case .readByGroupTypeResponse(let third) = database.readByGroupType(start: 5, end: 0xFFFF, mtu: 23) else {
            Issue.record("no answer"); return
        }
        #expect(third.count == 1, "one 20-byte 128-bit entry fits an MTU of 23")
        guard case .readByGroupTypeResponse(let wide) = database.readByGroupType(start: 5, end: 0xFFFF, mtu: 185) else {
            Issue.record("no answer"); return
        }
        #expect(wide.count == 2)
        #expect(database.readByGroupType(start: 7, end: 0xFFFF, mtu: 23) == .error(request: 0x10, handle: 7, .attributeNotFound))
        #expect(database.readByGroupType(start: 9, end: 3, mtu: 23) == .error(request: 0x10, handle: 9, .invalidHandle))
        #expect(database.findInformation(start: 0, end: 3, mtu: 23) == .error(request: 0x04, handle: 0, .invalidHandle))
        for response in [first, second, third, wide] {
            #expect(ATTPDU.readByGroupTypeResponse(response).length <= 185)
        }
        #expect(ATTPDU.readByGroupTypeResponse(first).length <= 23)
    }

    @Test("Find Information returns every attribute in range with its type")
    func findInformation() throws {
        var database = AttributeDatabase()
        _ = try database.add(.test)
        guard case .findInformationResponse(let entries) = database.findInformation(start: 4, end: 7, mtu: 185) else {
            Issue.record("no answer"); return
        }
        #expect(entries.map(\.handle) == [4, 5], "the 128-bit characteristic value at 6 does not join 16-bit entries")
        #expect(entries.map(\.uuid) == [BluetoothUUID.Descriptor.characteristicUserDescription, BluetoothUUID(0x2803)])
        guard case .findInformationResponse(let value) = database.findInformation(start: 6, end: 7, mtu: 185) else {
            Issue.record("no answer"); return
        }
        #expect(value.map(\.uuid) == [TestUUID.stream])
        guard case .findInformationResponse(let cccd) = database.findInformation(start: 7, end: 7, mtu: 185) else {
            Issue.record("no answer"); return
        }
        #expect(cccd.map(\.uuid) == [BluetoothUUID.Descriptor.clientCharacteristicConfiguration])
        #expect(database.findInformation(start: 25, end: 0xFFFF, mtu: 185) == .error(request: 0x04, handle: 25, .attributeNotFound))
    }

    @Test("PDU lengths follow the specification's layouts")
    func pduLengths() {
        #expect(ATTPDU.readRequest(handle: 3).length == 3)
        #expect(ATTPDU.readBlobRequest(handle: 3, offset: 22).length == 5)
        #expect(ATTPDU.writeRequest(handle: 3, Data(count: 20)).length == 23)
        #expect(ATTPDU.prepareWriteRequest(handle: 3, offset: 0, Data(count: 18)).length == 23)
        #expect(ATTPDU.notification(handle: 3, Data(count: 244)).length == 247)
        #expect(ATTPDU.error(request: 0x0A, handle: 3, .readNotPermitted).length == 5)
        #expect(ATTPDU.exchangeMTURequest(185).length == 3)
        #expect(ATTPDU.executeWriteRequest(commit: true).length == 2)
        #expect(ATTPDU.confirmation.length == 1)
        #expect(ATTPDU.readByGroupTypeResponse([.init(handle: 1, endHandle: 5, uuid: BluetoothUUID(0x180F))]).length == 8)
        #expect(ATTPDU.findInformationResponse([.init(handle: 4, uuid: BluetoothUUID(0x2902))]).length == 6)
    }
}
