import BleuATT
import BleuCore
import Foundation
import Testing

@testable import BleuEmulator

/// The permission table: every permission set, on characteristics of two property sets, read,
/// written and subscribed to over links at each security level — through the emulator's
/// managers, and through the ATT server BleuHCI runs (``ATTServer``, at the same security level).
/// Both must answer identically: one access-rule set serves both backends.
@Suite("Permission table: the emulator and BleuHCI's ATT server answer alike")
struct PermissionTableTests {
    /// The property sets: every property a rule looks at, and the command-only / indicate-only kind.
    static let propertySets: [CharacteristicProperties] = [[.read, .write, .notify], [.writeWithoutResponse, .indicate]]

    /// The permission sets: all 256 combinations of the eight low bits, and the Secure
    /// Connections (level 4) bits in each combination with readable / writeable, with and without
    /// the authorization bits. (Every combination of all ten bits is checked against the
    /// specification's rules in `AttributeAccessTests`; here the backends' plumbing of each
    /// level is what is compared.)
    static let permissionValues: [Int] = Array(0...255) + [0x100, 0x200, 0x300].flatMap { high in
        [0x01, 0x02, 0x03, 0xC1, 0xC2, 0xC3].map { $0 | high }
    }

    /// One characteristic per property set × permission set.
    static let definition: ServiceDefinition = {
        var characteristics: [CharacteristicDefinition] = []
        for (set, properties) in propertySets.enumerated() {
            for permissions in permissionValues {
                characteristics.append(CharacteristicDefinition(
                    uuid: uuid(set: set, permissions: permissions), properties: properties,
                    permissions: AttributePermissions(rawValue: UInt16(permissions))))
            }
        }
        return ServiceDefinition(uuid: BluetoothUUID(string: "5E7A0000-0000-1000-8000-00805F9B34FB")!,
                                 characteristics: characteristics)
    }()

    static func uuid(set: Int, permissions: Int) -> BluetoothUUID {
        BluetoothUUID(string: String(format: "5E7A%04X-0000-1000-8000-00805F9B34FB", set << 12 | permissions))!
    }

    /// How a link reaches each security level on the emulator ("pair now" before the table):
    /// not at all, Just Works (encrypted), legacy passkey entry (authenticated), Secure
    /// Connections passkey entry (level 4). The central does not pair by itself during the
    /// table, so every answer is the server's at that level.
    static let levels: [(SecurityLevel, PairingConfiguration.Method)] = [
        (.unencrypted, .justWorks), (.encrypted, .justWorks), (.authenticated, .legacyPasskeyEntry),
        (.authenticatedSecureConnections, .passkeyEntry),
    ]

    enum Request: String, CaseIterable { case read, write, subscribe }

    /// The ATT error, or `nil` for success; anything else fails the test.
    static func outcome(_ operation: () async throws -> Void) async -> ATTError? {
        do {
            try await operation()
            return nil
        } catch let error as BleuError {
            if case .att(let code) = error { return code }
            if case .notSupported = error { return .requestNotSupported }  // refused by the central before it asks
            Issue.record("unexpected error \(error)")
            return .unlikelyError
        } catch {
            Issue.record("unexpected error \(error)")
            return .unlikelyError
        }
    }

    /// What BleuHCI's server answers `request` on `characteristic` at `level`.
    static func serverAnswer(_ request: Request, _ characteristic: PublishedCharacteristic, database: GATTDatabase,
                             level: SecurityLevel) -> ATTError? {
        var connection = ATTServerConnection(security: LinkSecurity(level: level))
        connection.setMTU(247)
        let pdu: BleuATT.ATTPDU
        switch request {
        case .read: pdu = .readRequest(handle: characteristic.valueHandle)
        case .write: pdu = .writeRequest(handle: characteristic.valueHandle, value: [0x01])
        case .subscribe:
            let bits: UInt8 = characteristic.properties.contains(.notify) ? 0x01 : 0x02
            pdu = .writeRequest(handle: characteristic.valueHandle + 1, value: [bits, 0x00])  // the CCCD follows the value
        }
        switch ATTServer.handle(pdu, database: database, connection: &connection) {
        case .respond(.errorResponse(_, _, let code)): return code
        case .read, .write, .subscriptionChanged: return nil
        case let other:
            Issue.record("unexpected server action \(other)")
            return .unlikelyError
        }
    }

    @Test("every permission × properties × security level × request: identical answers", arguments: [0, 1, 2, 3])
    func table(levelIndex: Int) async throws {
        let (level, method) = Self.levels[levelIndex]
        var configuration = EmulatorConfiguration.instant
        configuration.pairing = PairingConfiguration(method: method, bonding: false, pairsOnInsufficientSecurity: false)
        let bus = EmulatorBus(configuration: configuration)
        let peripheral = EmulatedPeripheralManager(bus: bus)
        let app = Fixture.serveRequests(of: peripheral, from: ValueStore())
        defer { app.cancel() }
        let published = try await peripheral.add(Self.definition)
        try await peripheral.startAdvertising(AdvertisingData(localName: "Table"))
        let central = EmulatedCentralManager(bus: bus, options: .init(passkeyHandler: { $0.displayedPasskey }))
        let id = try await central.discover(name: "Table")
        try await central.connect(id)
        let service = try #require(try await central.discoverServices([Self.definition.uuid], on: id).first)
        let remote = Dictionary(uniqueKeysWithValues: try await central.discoverCharacteristics(nil, for: service).map { ($0.uuid, $0) })

        var database = GATTDatabase()
        let hosted = try database.add(Self.definition)

        // Raise the link to its level first, so every answer below is at that level.
        if level > .unencrypted { try await central.pair(id, minimum: level) }
        #expect(await central.securityLevel(of: id) == level)

        var compared = 0
        for (emulated, server) in zip(published.characteristics, hosted.characteristics) {
            let characteristic = try #require(remote[emulated.uuid])
            for request in Request.allCases {
                let emulatorAnswer: ATTError?
                switch request {
                case .read:
                    guard characteristic.properties.contains(.read) else { continue }  // a central refuses before asking
                    emulatorAnswer = await Self.outcome { _ = try await central.read(characteristic) }
                case .write:
                    guard characteristic.properties.contains(.write) else { continue }
                    emulatorAnswer = await Self.outcome { try await central.write(Data([0x01]), to: characteristic, type: .withResponse) }
                case .subscribe:
                    emulatorAnswer = await Self.outcome {
                        _ = try await central.subscribe(to: characteristic)
                        try await central.unsubscribe(from: characteristic)
                    }
                }
                let serverAnswer = Self.serverAnswer(request, server, database: database, level: level)
                #expect(emulatorAnswer == serverAnswer,
                        "\(request) of \(characteristic.properties) with permissions \(server.permissions.rawValue) at \(level)")
                compared += 1
            }
        }
        // read, write, subscribe on the first set; subscribe on the second
        #expect(compared == Self.permissionValues.count * 3 + Self.permissionValues.count)
        // The link stayed at its level: the table ran at one security level.
        #expect(bus.engine.withLock { engine in engine.links.values.first?.security } == level)
    }
}
