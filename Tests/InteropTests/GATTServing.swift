import BleuCore
import Foundation

@testable import BleuHCI

/// Runs `database` as a GATT server on one connection of `host` until the host stops: the
/// application's values are one byte, 0x57; writes and CCCD changes are recorded; a client that
/// enables notifications gets one notification, `[0x01, 0x02]`, of that characteristic.
func serveGATT(host: HCIHost, handle: UInt16, database: GATTDatabase)
    -> Task<(writes: [[UInt8]], subscriptions: [UInt16]), Never> {
    Task {
        var connection = ATTServerConnection()
        var writes: [[UInt8]] = []
        var subscriptions: [UInt16] = []
        for await received in host.frames where received.handle == handle && received.frame.channelID == L2CAPBFrame.attCID {
            var replies: [ATTPDU] = []
            switch ATTServer.handle(received.frame.payload, database: database, connection: &connection) {
            case .respond(let pdu): replies = [pdu]
            case .read(let op):
                replies = [op.response(value: Array([UInt8(0x57)].dropFirst(op.offset)), mtu: connection.mtu)]
            case .write(let op):
                writes += op.writes.map(\.value)
                replies = op.successResponse.map { [$0] } ?? []
            case let .subscriptionChanged(characteristic, configuration, response):
                subscriptions.append(configuration)
                replies = response.map { [$0] } ?? []
                if configuration & 1 != 0 {
                    replies.append(.handleValueNotification(handle: characteristic.valueHandle, value: [0x01, 0x02]))
                }
            case .ignore: break
            }
            for reply in replies {
                try? await host.send(L2CAPBFrame(channelID: L2CAPBFrame.attCID, payload: reply.encoded), on: handle)
            }
        }
        return (writes, subscriptions)
    }
}

/// The server both GATT interop tests host: Battery (level: read, notify, application value;
/// model name: static) and a 128-bit control characteristic (write, write without response).
func interopDatabase(name: String) throws -> (GATTDatabase, PublishedService) {
    var database = GATTDatabase(deviceName: name)
    let service = try database.add(ServiceDefinition(uuid: BluetoothUUID.Service.battery, characteristics: [
        CharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: [.read, .notify], permissions: .readable),
        CharacteristicDefinition(uuid: BluetoothUUID(0x2A24), properties: .read, permissions: .readable, value: Data("Model-7".utf8)),
        CharacteristicDefinition(uuid: PeripheralBumbleTests.control, properties: [.write, .writeWithoutResponse],
                                 permissions: .writeable),
    ]))
    return (database, service)
}
