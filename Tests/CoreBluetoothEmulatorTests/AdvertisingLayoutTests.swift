import BleuCore
@testable import CoreBluetoothEmulator
import Foundation
import Testing

@Suite("Where the peripheral manager puts what it advertises")
struct AdvertisingLayoutTests {
    static let first = BluetoothUUID(string: "6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let second = BluetoothUUID(string: "6E400002-B5A3-F393-E0A9-E50E24DCCA9E")!

    @Test("data that fits stays in the advertising packet")
    func fits() throws {
        let data = AdvertisingData(localName: "HRM", serviceUUIDs: [BluetoothUUID(0x180D)])
        let (advertising, response) = try EmulatedCBPeripheralManager.advertisingLayout(data)
        #expect(advertising == data && response == nil)
    }

    @Test("the local name moves to the scan response first")
    func nameMoves() throws {
        let data = AdvertisingData(localName: "A sensor with a long name", serviceUUIDs: [Self.first])
        let (advertising, response) = try EmulatedCBPeripheralManager.advertisingLayout(data)
        #expect(advertising.serviceUUIDs == [Self.first] && advertising.localName == nil)
        #expect(response?.localName == "A sensor with a long name")
    }

    @Test("service UUIDs that do not fit follow in the scan response, as incomplete lists; a scanner sees them all")
    func servicesOverflow() throws {
        let data = AdvertisingData(localName: "Two", serviceUUIDs: [Self.first, Self.second])
        let (advertising, response) = try EmulatedCBPeripheralManager.advertisingLayout(data)
        #expect(advertising.serviceUUIDs == [Self.first])
        let scanResponse = try #require(response)
        #expect(scanResponse.serviceUUIDs == [Self.second] && scanResponse.localName == "Two")
        #expect(advertising.merged(with: scanResponse).serviceUUIDs == [Self.first, Self.second])
        #expect(advertising.structures.allSatisfy { if case .serviceUUIDs(_, _, complete: true) = $0 { false } else { true } })
    }

    @Test("data that fits neither packet is refused")
    func tooMuch() {
        let uuids = (0..<4).map { BluetoothUUID(string: "6E40000\($0)-B5A3-F393-E0A9-E50E24DCCA9E")! }
        #expect(throws: AdvertisingDataError.self) {
            _ = try EmulatedCBPeripheralManager.advertisingLayout(AdvertisingData(localName: "Four", serviceUUIDs: uuids))
        }
    }
}
