import Testing
import BleuCore

/// The README's first example, compiled and run as written.
@Test("README example")
func readmeExample() throws {
    let advertisement = AdvertisingData(flags: .leGeneralDiscoverable, localName: "Thermo",
                                        serviceUUIDs: [BluetoothUUID.Service.healthThermometer])
    let bytes = try advertisement.encoded()
    let (main, scanResponse) = try advertisement.split()
    let received = try AdvertisingData(decoding: bytes)
    #expect(received.localName == "Thermo")
    #expect(received.serviceUUIDs.map(\.description) == ["1809 (Health Thermometer)"])
    #expect(main == advertisement && scanResponse.structures.isEmpty)
}
