import BleuCore
import Foundation
import Testing

@testable import BleuATT

/// The shared client procedures against the shared server, in memory: what both backends run.
@Suite("GATT client procedures against the ATT server")
struct GATTProcedureTests {
    static let secondary = BluetoothUUID(string: "7B5A0001-0000-1000-8000-00805F9B34FB")!
    static let long = BluetoothUUID(string: "7B5A0002-0000-1000-8000-00805F9B34FB")!

    /// A server whose application answers reads with `value` and accepts every write; `tamper`
    /// may change a response before the client sees it. Returns the outcome and every request sent.
    static func run(_ kind: GATTProcedure.Kind, on database: GATTDatabase, mtu: Int = 23, value: [UInt8] = [],
                    tamper: (ATTPDU) -> ATTPDU = { $0 }) -> (Result<GATTProcedure.Outcome, GATTProcedure.Failure>, [ATTPDU]) {
        var connection = ATTServerConnection()
        connection.setMTU(mtu)
        var procedure = GATTProcedure(kind, mtu: mtu)
        var sent: [ATTPDU] = []
        var step = procedure.start()
        while case .send(let request) = step {
            sent.append(request)
            let response: ATTPDU
            switch ATTServer.handle(request, database: database, connection: &connection) {
            case .respond(let pdu): response = pdu
            case .read(let operation): response = operation.response(value: Array(value.dropFirst(operation.offset)), mtu: mtu)
            case .write(let operation): response = operation.successResponse ?? .writeResponse
            case .subscriptionChanged(_, _, let pdu): response = pdu ?? .writeResponse
            case .ignore: return (.failure(.unexpectedResponse(request: request.opcode, response: .errorResponse)), sent)
            }
            step = procedure.receive(tamper(response))
            #expect(sent.count < 200, "the procedure ends")
        }
        guard case .finished(let result) = step else { return (.failure(.malformedResponse(.errorResponse)), sent) }
        return (result, sent)
    }

    static func database() throws -> (GATTDatabase, PublishedService, PublishedService) {
        var database = GATTDatabase(empty: 0xFFFE)
        let included = try database.add(ServiceDefinition(uuid: secondary, isPrimary: false, characteristics: []))
        let battery = try database.add(ServiceDefinition(uuid: BluetoothUUID.Service.battery, characteristics: []))
        let main = try database.add(ServiceDefinition(uuid: BluetoothUUID.Service.deviceInformation, characteristics: [
            CharacteristicDefinition(uuid: long, properties: [.read, .write], permissions: .readWrite),
            CharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: [.read], permissions: .readable),
        ], includedServices: [secondary, BluetoothUUID.Service.battery]))
        _ = battery
        return (database, included, main)
    }

    @Test("included services: a 128-bit one's UUID is read from its declaration, and each one's kind from its type")
    func includedServices() throws {
        let (database, included, main) = try Self.database()
        let (result, sent) = Self.run(.discoverIncludedServices(start: main.handle, end: main.endHandle), on: database)
        guard case .success(.services(let services)) = result else { Issue.record("\(result)"); return }
        #expect(services.map(\.uuid) == [Self.secondary, BluetoothUUID.Service.battery])
        #expect(services.map(\.isPrimary) == [false, true])
        #expect(services.first?.handle == included.handle)
        #expect(sent.contains(.readRequest(handle: included.handle)), "the 128-bit UUID is not in the include declaration")
    }

    @Test("a long write goes in prepared writes and one execute; a wrong echo cancels it; an error cancels it")
    func longWrites() throws {
        let (database, _, main) = try Self.database()
        let handle = main.characteristics[0].valueHandle
        let value = (0..<60).map { UInt8($0) }
        let (result, sent) = Self.run(.write(handle: handle, value: value), on: database)
        #expect(result == .success(.written))
        #expect(sent.filter { $0.opcode == .prepareWriteRequest }.count == 4, "18 + 18 + 18 + 6 bytes")
        #expect(sent.last == .executeWriteRequest(commit: true))

        let (tampered, tamperedSent) = Self.run(.write(handle: handle, value: value), on: database) { response in
            guard case .prepareWriteResponse(let h, let o, var v) = response, o == 18 else { return response }
            v[0] ^= 0xFF
            return .prepareWriteResponse(handle: h, offset: o, value: v)
        }
        #expect(tampered == .failure(.preparedWriteMismatch(handle: handle, offset: 18)))
        #expect(tamperedSent.last == .executeWriteRequest(commit: false))

        let (refused, refusedSent) = Self.run(.write(handle: main.characteristics[1].valueHandle, value: value), on: database)
        #expect(refused == .failure(.att(.writeNotPermitted, request: .prepareWriteRequest, handle: main.characteristics[1].valueHandle)))
        #expect(refusedSent.last == .executeWriteRequest(commit: false))
    }

    @Test("a long read stops at a short part, at 512 bytes, or at the server's Attribute Not Long")
    func longReads() throws {
        let (database, _, main) = try Self.database()
        let handle = main.characteristics[0].valueHandle
        let value = (0..<600).map { UInt8(truncatingIfNeeded: $0) }
        let (full, sent) = Self.run(.read(handle: handle), on: database, value: value)
        #expect(full == .success(.value(Array(value.prefix(512)))))
        #expect(sent.count == 24, "one read and 23 blobs of 22 bytes reach 512")
        let (short, _) = Self.run(.read(handle: handle), on: database, value: Array(value.prefix(30)))
        #expect(short == .success(.value(Array(value.prefix(30)))))
    }

    @Test("configuring a characteristic without a CCCD fails with that reason")
    func missingConfiguration() throws {
        let (database, _, main) = try Self.database()
        let characteristic = main.characteristics[1]
        let (result, _) = Self.run(.configure(valueHandle: characteristic.valueHandle, end: main.endHandle, descriptor: nil, bits: 1),
                                   on: database)
        #expect(result == .failure(.noConfigurationDescriptor(valueHandle: characteristic.valueHandle)))
    }
}
