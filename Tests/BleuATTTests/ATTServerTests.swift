
import BleuCore
import Foundation
import Testing

@testable import BleuATT

@Suite("GATT database and ATT server")
struct ATTServerTests {
    static let level = BluetoothUUID(0x2A19)
    static let name = BluetoothUUID(0x2A24)
    static let control = BluetoothUUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E")

    /// GAP 1–5, GATT 6–9, then 0x180F at 10–18: level (read, notify; app value) 11–13,
    /// model name (static, with a user description) 14–16, control (128-bit, write and write
    /// without response; app value) 17–18.
    static func database() throws -> (GATTDatabase, PublishedService) {
        var database = GATTDatabase(deviceName: "bleu-test", appearance: 0x0340)
        let service = try database.add(ServiceDefinition(uuid: BluetoothUUID.Service.battery, characteristics: [
            CharacteristicDefinition(uuid: level, properties: [.read, .notify], permissions: .readable),
            CharacteristicDefinition(uuid: name, properties: .read, permissions: .readable, value: Data("Model-7".utf8),
                                     descriptors: [.userDescription("model")]),
            CharacteristicDefinition(uuid: control, properties: [.write, .writeWithoutResponse], permissions: .writeable),
        ]))
        return (database, service)
    }

    func run(_ bytes: [UInt8], _ database: GATTDatabase, _ connection: inout ATTServerConnection) -> ATTServerAction {
        ATTServer.handle(bytes, database: database, connection: &connection)
    }

    @Test("the handle layout: GAP, GATT with Service Changed and its CCCD, then the added service")
    func layout() throws {
        let (database, service) = try Self.database()
        #expect(service.handle == 10 && service.endHandle == 18)
        #expect(service.characteristics.map(\.valueHandle) == [12, 15, 18])
        #expect(database.serviceChangedHandle == 8)
        #expect(database.attribute(13)?.value == .clientConfiguration)
        #expect(database.attribute(3)?.value == .fixed(Array("bleu-test".utf8)))
        #expect(database.attribute(11)?.value == .fixed([0x12, 12, 0, 0x19, 0x2A]))
    }

    @Test("discovery: primary services, characteristics, descriptors, find by type value")
    func discovery() throws {
        let (database, _) = try Self.database()
        var c = ATTServerConnection()
        #expect(run([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], database, &c) == .respond(.readByGroupTypeResponse([
            .init(handle: 1, endGroupHandle: 5, value: [0x00, 0x18]), .init(handle: 6, endGroupHandle: 9, value: [0x01, 0x18]),
            .init(handle: 10, endGroupHandle: 18, value: [0x0F, 0x18])])))
        #expect(run([0x10, 0x13, 0x00, 0xFF, 0xFF, 0x00, 0x28], database, &c) == .respond(.errorResponse(
            requestOpcode: .readByGroupTypeRequest, handle: 0x13, error: .attributeNotFound)))
        // Characteristic declarations; the 128-bit one has a different length, so it comes in a later request.
        #expect(run(ATTPDU.readByTypeRequest(startingHandle: 10, endingHandle: 18, type: BluetoothUUID(0x2803)).encoded, database, &c)
                == .respond(.readByTypeResponse([.init(handle: 11, value: [0x12, 12, 0, 0x19, 0x2A]),
                                                 .init(handle: 14, value: [0x02, 15, 0, 0x24, 0x2A])])))
        guard case .respond(.readByTypeResponse(let rest)) = run(
            ATTPDU.readByTypeRequest(startingHandle: 15, endingHandle: 18, type: BluetoothUUID(0x2803)).encoded, database, &c) else {
            Issue.record("no declaration for the 128-bit characteristic")
            return
        }
        #expect(rest == [.init(handle: 17, value: [0x0C, 18, 0] + Self.control.attBytes)])
        #expect(run(ATTPDU.findInformationRequest(startingHandle: 13, endingHandle: 13).encoded, database, &c)
                == .respond(.findInformationResponse(.init(entries: [.init(handle: 13, type: BluetoothUUID(0x2902))]))))
        #expect(run(ATTPDU.findByTypeValueRequest(startingHandle: 1, endingHandle: 0xFFFF, type: 0x2800, value: [0x0F, 0x18]).encoded,
                    database, &c) == .respond(.findByTypeValueResponse([.init(foundHandle: 10, groupEndHandle: 18)])))
        #expect(run(ATTPDU.findInformationRequest(startingHandle: 0, endingHandle: 5).encoded, database, &c)
                == .respond(.errorResponse(requestOpcode: .findInformationRequest, handle: 0, error: .invalidHandle)))
    }

    @Test("reads: static values and blobs answered directly, application values asked for, permissions enforced")
    func reads() throws {
        let (database, service) = try Self.database()
        var c = ATTServerConnection()
        #expect(run([0x0A, 15, 0], database, &c) == .respond(.readResponse(value: Array("Model-7".utf8))))
        #expect(run([0x0C, 15, 0, 5, 0], database, &c) == .respond(.readBlobResponse(value: Array("-7".utf8))))
        #expect(run([0x0C, 15, 0, 8, 0], database, &c)
                == .respond(.errorResponse(requestOpcode: .readBlobRequest, handle: 15, error: .invalidOffset)))
        let level = service.characteristics[0]
        #expect(run([0x0A, 12, 0], database, &c) == .read(ATTReadOperation(kind: .read, characteristic: level, offset: 0)))
        let op = ATTReadOperation(kind: .read, characteristic: level, offset: 0)
        #expect(op.response(value: Array(repeating: 7, count: 40), mtu: 23) == .readResponse(value: Array(repeating: 7, count: 22)))
        #expect(run([0x0A, 18, 0], database, &c)
                == .respond(.errorResponse(requestOpcode: .readRequest, handle: 18, error: .readNotPermitted)))
        #expect(run([0x0A, 0x99, 0], database, &c)
                == .respond(.errorResponse(requestOpcode: .readRequest, handle: 0x99, error: .invalidHandle)))
        #expect(run([0x0E, 3, 0, 15, 0], database, &c) == .respond(.readMultipleResponse(values: Array("bleu-testModel-7".utf8))))
    }

    @Test("the access rules guard every request kind: permissions, authentication, authorization, prepared writes, CCCDs")
    func accessRules() throws {
        // Before the shared rules, this server checked only properties and the encryption bits:
        // each line below was answered as allowed over a plain link.
        var database = GATTDatabase()
        let service = try database.add(ServiceDefinition(uuid: BluetoothUUID.Service.battery, characteristics: [
            CharacteristicDefinition(uuid: Self.level, properties: [.read, .write], permissions: []),
            CharacteristicDefinition(uuid: Self.name, properties: [.read, .write, .notify],
                                     permissions: [.readable, .writeable, .readAuthenticationRequired,
                                                   .writeAuthenticationRequired]),
            CharacteristicDefinition(uuid: Self.control, properties: [.read, .write],
                                     permissions: [.readable, .writeable, .readAuthorizationRequired,
                                                   .writeEncryptionRequired]),
        ]))
        let (closed, authenticated, authorized) = (service.characteristics[0], service.characteristics[1], service.characteristics[2])
        func answer(_ pdu: ATTPDU, _ security: LinkSecurity = .unencrypted) -> ATTError? {
            var connection = ATTServerConnection(security: security)
            if case .respond(.errorResponse(_, _, let code)) = ATTServer.handle(pdu, database: database, connection: &connection) {
                return code
            }
            return nil
        }
        // Properties allow it, permissions do not.
        #expect(answer(.readRequest(handle: closed.valueHandle)) == .readNotPermitted)
        #expect(answer(.writeRequest(handle: closed.valueHandle, value: [1])) == .writeNotPermitted)
        #expect(answer(.prepareWriteRequest(handle: closed.valueHandle, offset: 0, value: [1])) == .writeNotPermitted)
        // Authentication: refused over plain and merely encrypted links, allowed once authenticated.
        for pdu: ATTPDU in [.readRequest(handle: authenticated.valueHandle),
                            .readBlobRequest(handle: authenticated.valueHandle, offset: 0),
                            .readByTypeRequest(startingHandle: 1, endingHandle: 0xFFFF, type: Self.name),
                            .writeRequest(handle: authenticated.valueHandle, value: [1]),
                            .prepareWriteRequest(handle: authenticated.valueHandle, offset: 0, value: [1]),
                            .writeRequest(handle: authenticated.valueHandle + 1, value: [1, 0])] {
            #expect(answer(pdu) == .insufficientAuthentication, "\(pdu)")
            #expect(answer(pdu, LinkSecurity(level: .encrypted)) == .insufficientAuthentication, "\(pdu)")
            #expect(answer(pdu, LinkSecurity(level: .authenticated)) == nil, "\(pdu)")
        }
        // A short key: refused with Encryption Key Size Too Short where the server wants 16 bytes.
        var strict = ATTServerConnection(security: LinkSecurity(level: .authenticated, keySize: 7), minimumKeySize: 16)
        #expect(ATTServer.handle(.readRequest(handle: authenticated.valueHandle), database: database, connection: &strict)
                == .respond(.errorResponse(requestOpcode: .readRequest, handle: authenticated.valueHandle,
                                           error: .encryptionKeySizeTooShort)))
        // Authorization the application has not granted; a prepared write still needs encryption.
        #expect(answer(.readRequest(handle: authorized.valueHandle)) == .insufficientAuthorization)
        #expect(answer(.readRequest(handle: authorized.valueHandle), LinkSecurity(isAuthorized: true)) == nil)
        #expect(answer(.prepareWriteRequest(handle: authorized.valueHandle, offset: 0, value: [1])) == .insufficientEncryption)
        // A write command that fails a check is dropped, never answered.
        var connection = ATTServerConnection()
        guard case .ignore = ATTServer.handle(.writeCommand(handle: closed.valueHandle, value: [1]), database: database,
                                              connection: &connection) else {
            Issue.record("a refused command was not dropped"); return
        }
    }

    @Test("writes: CCCD per client, application writes, refusals; commands are never answered")
    func writes() throws {
        let (database, service) = try Self.database()
        var c = ATTServerConnection()
        var other = ATTServerConnection()
        #expect(run([0x12, 13, 0, 0x01, 0x00], database, &c)
                == .subscriptionChanged(service.characteristics[0], configuration: 1, response: .writeResponse))
        #expect(c.isSubscribed(12, indications: false) && !c.isSubscribed(12, indications: true))
        #expect(!other.isSubscribed(12, indications: false), "CCCDs are per client")
        #expect(run([0x0A, 13, 0], database, &c) == .respond(.readResponse(value: [1, 0])))
        #expect(run([0x0A, 13, 0], database, &other) == .respond(.readResponse(value: [0, 0])))
        #expect(run([0x12, 13, 0, 0x01], database, &c)
                == .respond(.errorResponse(requestOpcode: .writeRequest, handle: 13, error: .invalidAttributeValueLength)))
        let control = service.characteristics[2]
        #expect(run([0x12, 18, 0, 0xAA], database, &c) == .write(ATTWriteOperation(
            writes: [.init(characteristic: control, offset: 0, value: [0xAA])], request: .writeRequest)))
        #expect(run([0x52, 18, 0, 0xBB], database, &c) == .write(ATTWriteOperation(
            writes: [.init(characteristic: control, offset: 0, value: [0xBB])], request: nil)))
        #expect(run([0x12, 15, 0, 0xAA], database, &c)
                == .respond(.errorResponse(requestOpcode: .writeRequest, handle: 15, error: .writeNotPermitted)))
        guard case .ignore = run([0x52, 15, 0, 0xAA], database, &c) else {
            Issue.record("a refused write command must not be answered")
            return
        }
    }

    @Test("prepared writes queue (bounded) and execute as one application write")
    func preparedWrites() throws {
        let (database, service) = try Self.database()
        var c = ATTServerConnection(maxPreparedWrites: 2)
        #expect(run([0x16, 18, 0, 0, 0, 1, 2], database, &c) == .respond(.prepareWriteResponse(handle: 18, offset: 0, value: [1, 2])))
        #expect(run([0x16, 18, 0, 2, 0, 3], database, &c) == .respond(.prepareWriteResponse(handle: 18, offset: 2, value: [3])))
        #expect(run([0x16, 18, 0, 3, 0, 4], database, &c)
                == .respond(.errorResponse(requestOpcode: .prepareWriteRequest, handle: 18, error: .prepareQueueFull)))
        let control = service.characteristics[2]
        #expect(run([0x18, 0x01], database, &c) == .write(ATTWriteOperation(writes: [
            .init(characteristic: control, offset: 0, value: [1, 2]), .init(characteristic: control, offset: 2, value: [3])],
            request: .executeWriteRequest)))
        #expect(run([0x18, 0x01], database, &c) == .respond(.executeWriteResponse), "the queue was emptied")
        #expect(run([0x16, 15, 0, 0, 0, 1], database, &c)
                == .respond(.errorResponse(requestOpcode: .prepareWriteRequest, handle: 15, error: .writeNotPermitted)))
    }

    @Test("MTU exchange clamps to 23…517; unknown and malformed requests get the right error")
    func mtuAndBadInput() throws {
        let (database, _) = try Self.database()
        var c = ATTServerConnection()
        #expect(run([0x02, 0x58, 0x02], database, &c) == .respond(.exchangeMTUResponse(serverRxMTU: 517)))
        #expect(c.mtu == 517)
        #expect(run([0x02, 0x0A, 0x00], database, &c) == .respond(.exchangeMTUResponse(serverRxMTU: 517)))
        #expect(c.mtu == 23)
        #expect(run([0x3F, 1, 2], database, &c) == .respond(.errorResponse(requestOpcode: ATTOpcode(rawValue: 0x3F), handle: 0,
                                                                            error: .requestNotSupported)))
        #expect(run([0x0A, 0x01], database, &c) == .respond(.errorResponse(requestOpcode: .readRequest, handle: 0, error: .invalidPDU)))
        // Longer than the MTU (the fuzzer's finding: an oversize Prepare Write was echoed back oversize).
        let oversize: [UInt8] = [0x16, 0x12, 0x00, 0x00, 0x00] + Array(repeating: 0xD0, count: 20)
        #expect(run(oversize, database, &c) == .respond(.errorResponse(requestOpcode: .prepareWriteRequest, handle: 0, error: .invalidPDU)))
        guard case .ignore = run([0x52, 0x12, 0x00] + Array(repeating: 1, count: 30), database, &c) else {
            Issue.record("an oversize command must be dropped")
            return
        }
        guard case .ignore = run([0x52, 0x01], database, &c), case .ignore = run([0x7F], database, &c) else {
            Issue.record("bad commands must be dropped silently")
            return
        }
    }

    @Test("invalid service definitions are refused with a reason")
    func validation() throws {
        var database = GATTDatabase()
        #expect(throws: BleuError.self) {
            try database.add(ServiceDefinition(uuid: BluetoothUUID(0x1234), characteristics: [
                CharacteristicDefinition(uuid: BluetoothUUID(0x2A00), properties: [.read, .write], permissions: .readWrite,
                                         value: Data([1]))]))
        }
        #expect(throws: BleuError.self) {
            try database.add(ServiceDefinition(uuid: BluetoothUUID.Service.genericAccess, characteristics: []))
        }
        let service = try database.add(ServiceDefinition(uuid: BluetoothUUID(0x1234), characteristics: []))
        try database.remove(service)
        #expect(database.attribute(service.handle) == nil)
        #expect(throws: BleuError.self) { try database.remove(service) }
    }
}
