import BleuATT
import BleuCore
import Foundation
import Testing

@testable import BleuHCI

/// The permission table on BleuHCI, both roles ours: our peripheral hosts every permission set
/// on characteristics of two property sets, our central reads, writes and subscribes over a
/// link at each security level (reached by pairing on `LinkedControllers`), and every answer
/// must be the one the shared ATT core's rules give at that level.
@Suite("Permission table on BleuHCI: our central against our peripheral at each security level")
struct RadioPermissionTableTests {
    static let propertySets: [CharacteristicProperties] = [[.read, .write, .notify], [.writeWithoutResponse, .indicate]]
    static let service = BluetoothUUID("5E7B0000-0000-1000-8000-00805F9B34FB")

    static func uuid(set: Int, permissions: Int) -> BluetoothUUID {
        BluetoothUUID(string: String(format: "5E7B%04X-0000-1000-8000-00805F9B34FB", set << 12 | permissions))!
    }

    /// The permission sets: all 256 combinations of the eight low bits, and the Secure
    /// Connections (level 4) bits in each combination with readable / writeable, with and without
    /// the authorization bits. (Every combination of all ten bits is checked against the
    /// specification's rules in `AttributeAccessTests`; here the backends' plumbing of each
    /// level is what is compared.)
    static let permissionValues: [Int] = Array(0...255) + [0x100, 0x200, 0x300].flatMap { high in
        [0x01, 0x02, 0x03, 0xC1, 0xC2, 0xC3].map { $0 | high }
    }

    static let definition: ServiceDefinition = ServiceDefinition(uuid: service, characteristics: propertySets.enumerated().flatMap { set, properties in
        permissionValues.map { permissions in
            CharacteristicDefinition(uuid: uuid(set: set, permissions: permissions), properties: properties,
                                     permissions: AttributePermissions(rawValue: UInt16(permissions)))
        }
    })

    enum Request: CaseIterable { case read, write, subscribe }

    /// The ATT error a request ended with, `nil` for success.
    static func outcome(_ operation: () async throws -> Void) async -> ATTError? {
        do {
            try await operation()
            return nil
        } catch BleuError.att(let code) {
            return code
        } catch {
            Issue.record("unexpected error \(error)")
            return .unlikelyError
        }
    }

    /// What the shared ATT core answers `request` on `characteristic` at `level`.
    static func expected(_ request: Request, _ characteristic: PublishedCharacteristic, level: SecurityLevel) -> ATTError? {
        switch request {
        case .read: AttributeAccess.error(for: .read, on: characteristic, link: LinkSecurity(level: level))
        case .write: AttributeAccess.error(for: .write, on: characteristic, link: LinkSecurity(level: level))
        case .subscribe: AttributeAccess.error(for: .subscribe, on: characteristic, link: LinkSecurity(level: level))
        }
    }

    @Test("every permission × properties × request answers as the shared rules say", arguments: SecurityLevel.allCases)
    func table(level: SecurityLevel) async throws {
        // Passkey entry gives authenticated keys: with LE legacy pairing level 3, with Secure Connections level 4.
        let io: (IOCapability, IOCapability) = level >= .authenticated ? (.keyboardOnly, .displayOnly) : (.noInputNoOutput, .noInputNoOutput)
        let secureConnections = level != .authenticated
        let radios = try await PairedRadios.start(central: .init(ioCapability: io.0, supportsSecureConnections: secureConnections),
                                                  peripheral: .init(ioCapability: io.1, supportsSecureConnections: secureConnections),
                                                  pairsOnInsufficientSecurity: false)
        let board = PasskeyBoard()
        await radios.centralRadio.setPairingDelegate(board)
        await radios.peripheralRadio.setPairingDelegate(board)
        let published = try await radios.peripheral.add(Self.definition)
        // The application answers every request that reaches it: reads with one byte, writes accepted.
        let events = radios.peripheral.events()
        let app = Task {
            for await event in events {
                switch event {
                case .readRequest(let request): await radios.peripheral.respond(to: request, with: .success(Data([0x2A])))
                case .writeRequests(let requests): await radios.peripheral.respond(to: requests, with: .success(()))
                default: break
                }
            }
        }
        defer { app.cancel() }
        let (peer, _) = try await radios.connect()
        if level > .unencrypted { try await radios.central.pair(peer, minimum: level) }
        #expect(await radios.central.securityLevel(of: peer) == level)

        let service = try #require(try await radios.central.discoverServices([Self.service], on: peer).first)
        let remote = Dictionary(uniqueKeysWithValues: try await radios.central.discoverCharacteristics(nil, for: service).map { ($0.uuid, $0) })
        var compared = 0
        for hosted in published.characteristics {
            let characteristic = try #require(remote[hosted.uuid])
            for request in Request.allCases {
                let answer: ATTError?
                switch request {
                case .read:
                    guard characteristic.properties.contains(.read) else { continue }
                    answer = await Self.outcome { _ = try await radios.central.read(characteristic) }
                case .write:
                    guard characteristic.properties.contains(.write) else { continue }
                    answer = await Self.outcome { try await radios.central.write(Data([0x01]), to: characteristic, type: .withResponse) }
                case .subscribe:
                    answer = await Self.outcome {
                        _ = try await radios.central.subscribe(to: characteristic)
                        try await radios.central.unsubscribe(from: characteristic)
                    }
                }
                #expect(answer == Self.expected(request, hosted, level: level),
                        "\(request) of \(characteristic.properties) with permissions \(hosted.permissions.rawValue) at \(level)")
                compared += 1
            }
        }
        #expect(compared == Self.permissionValues.count * 3 + Self.permissionValues.count)
        #expect(await radios.central.securityLevel(of: peer) == level, "the table ran at one level")
        await radios.stop()
    }
}
