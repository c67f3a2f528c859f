import BleuCore
import BumbleSupport
import Foundation
import Testing

@testable import BleuHCI

/// Two of our radios on one Bumble virtual link: a central on controller A, a peripheral on
/// controller B, each with its manager.
struct RadioPair {
    let link: BumbleLink
    let centralRadio: HCIRadio
    let peripheralRadio: HCIRadio
    let central: HCICentralManager
    let peripheral: HCIPeripheralManager

    /// Both radios take `configuration`, the peripheral's with its own ``HCIRadioConfiguration/security``
    /// when `peripheralSecurity` is given.
    static func start(configuration: HCIRadioConfiguration = HCIRadioConfiguration(),
                      peripheralSecurity: SecurityManagerConfiguration? = nil) async throws -> RadioPair {
        let link = try await BumbleLink.start()
        var peripheralConfiguration = configuration
        if let peripheralSecurity { peripheralConfiguration.security = peripheralSecurity }
        peripheralConfiguration.deviceName = "bleu-peripheral"
        let peripheralRadio = try await BumbleLink.radio(port: link.portB, configuration: peripheralConfiguration, name: "peripheral")
        let centralRadio = try await BumbleLink.radio(port: link.portA, configuration: configuration, name: "central")
        return RadioPair(link: link, centralRadio: centralRadio, peripheralRadio: peripheralRadio,
                         central: HCICentralManager(radio: centralRadio), peripheral: HCIPeripheralManager(radio: peripheralRadio))
    }

    /// Advertises `name` (with `service`), scans for it and connects; returns the peripheral's id
    /// as the central knows it.
    func connect(name: String = "bleu-p", service: BluetoothUUID? = nil) async throws -> UUID {
        try await peripheral.startAdvertising(AdvertisingData(localName: name, serviceUUIDs: service.map { [$0] } ?? []))
        let found = try await central.scan(ScanOptions(services: service.map { [$0] })).first { $0.localName == name }
        let id = try #require(found?.peripheral)
        await central.stopScan()
        try await central.connect(id, timeout: .seconds(10))
        return id
    }

    func stop() async {
        await centralRadio.stop()
        await peripheralRadio.stop()
        link.stop()
    }
}

/// Answers a peripheral's requests like a tiny application: reads return `value(characteristic)`,
/// writes are recorded and accepted (or refused with `refuse` for that UUID).
actor RequestAnswerer {
    private(set) var writes: [(uuid: BluetoothUUID, value: Data, needsResponse: Bool)] = []
    private(set) var subscriptions: [BluetoothUUID] = []
    private var task: Task<Void, Never>?

    func start(_ peripheral: any PeripheralManager, value: @escaping @Sendable (BluetoothUUID) -> Data,
               refuse: BluetoothUUID? = nil) {
        let events = peripheral.events()
        task = Task {
            for await event in events {
                switch event {
                case .readRequest(let request):
                    let bytes = value(request.characteristic.uuid)
                    await peripheral.respond(to: request, with: request.offset <= bytes.count
                                             ? .success(bytes.dropFirst(request.offset)) : .failure(.invalidOffset))
                case .writeRequests(let requests):
                    let refused = requests.requests.contains { $0.characteristic.uuid == refuse }
                    for write in requests.requests { record(write.characteristic.uuid, write.value, requests.needsResponse) }
                    if requests.needsResponse {
                        await peripheral.respond(to: requests, with: refused ? .failure(ATTError(rawValue: 0x80)) : .success(()))
                    }
                case .subscribed(_, let characteristic):
                    subscribed(characteristic.uuid)
                default:
                    break
                }
            }
        }
    }

    private func record(_ uuid: BluetoothUUID, _ value: Data, _ needsResponse: Bool) {
        writes.append((uuid, value, needsResponse))
    }

    private func subscribed(_ uuid: BluetoothUUID) {
        subscriptions.append(uuid)
    }

    func stop() {
        task?.cancel()
    }
}
