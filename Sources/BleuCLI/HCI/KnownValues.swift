import BleuCore
import BleuGATT
import Foundation

/// Decodes the values of characteristics the SIG catalogue knows, for `bleu gatt`.
enum KnownValues {
    /// The value as its type prints it, or `nil` when the UUID is not a known one (or the bytes
    /// do not decode, in which case the reason is returned).
    static func describe(_ value: Data, of uuid: BluetoothUUID) -> String? {
        guard let decode = decoders[uuid] else { return nil }
        do {
            return try decode(value)
        } catch {
            return "does not decode: \(error)"
        }
    }

    private static func text<Value>(_ characteristic: Characteristic<Value>) -> (BluetoothUUID, @Sendable (Data) throws -> String) {
        (characteristic.uuid, { String(describing: try characteristic.decode($0)) })
    }

    private static let decoders: [BluetoothUUID: @Sendable (Data) throws -> String] = {
        var table: [BluetoothUUID: @Sendable (Data) throws -> String] = [
            BluetoothUUID.Characteristic.deviceName: { "\"\(String(decoding: $0, as: UTF8.self))\"" },
            BluetoothUUID.Characteristic.appearance: { value in
                guard value.count == 2 else { throw BleuError.invalidData("expected 2 bytes, found \(value.count)") }
                return String(format: "0x%04X", UInt16(value[value.startIndex]) | UInt16(value[value.startIndex + 1]) << 8)
            },
        ]
        let entries = [
            text(BatteryService.level),
            text(DeviceInformationService.manufacturerName), text(DeviceInformationService.modelNumber),
            text(DeviceInformationService.serialNumber), text(DeviceInformationService.firmwareRevision),
            text(DeviceInformationService.hardwareRevision), text(DeviceInformationService.softwareRevision),
            text(DeviceInformationService.systemID), text(DeviceInformationService.pnpID),
            text(HeartRateService.measurement), text(HeartRateService.bodySensorLocation),
            text(HealthThermometerService.temperatureMeasurement), text(HealthThermometerService.temperatureType),
            text(HealthThermometerService.measurementInterval), text(CurrentTimeService.currentTime),
            text(EnvironmentalSensingService.temperature), text(EnvironmentalSensingService.humidity),
            text(EnvironmentalSensingService.pressure),
        ]
        for (uuid, decode) in entries { table[uuid] = decode }
        return table
    }()
}
