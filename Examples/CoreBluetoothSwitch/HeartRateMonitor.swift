import Foundation
#if canImport(CoreBluetooth) && !BLEU_EMULATED
import CoreBluetooth
#else
import CoreBluetoothEmulator
#endif

/// The app's code: finds a heart-rate sensor, subscribes to its measurements and reports
/// them. Written with CoreBluetooth's names only; `CoreBluetoothTypes.swift` picks the radio.
final class HeartRateMonitor: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    private var central: CBCentralManager!
    private var sensor: CBPeripheral?
    private let onMeasurement: (Int) -> Void

    init(onMeasurement: @escaping (Int) -> Void) {
        self.onMeasurement = onMeasurement
        super.init()
        central = CBCentralManager(delegate: self, queue: nil)
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn else { return }
        central.scanForPeripherals(withServices: [CBUUID(string: "180D")], options: nil)
    }

    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                        advertisementData: [String: Any], rssi RSSI: NSNumber) {
        sensor = peripheral
        central.stopScan()
        central.connect(peripheral, options: nil)
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        peripheral.delegate = self
        peripheral.discoverServices([CBUUID(string: "180D")])
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        guard let service = peripheral.services?.first else { return }
        peripheral.discoverCharacteristics([CBUUID(string: "2A37")], for: service)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        guard let measurement = service.characteristics?.first else { return }
        peripheral.setNotifyValue(true, for: measurement)
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?) {
        guard error == nil, let value = characteristic.value, value.count >= 2 else { return }
        onMeasurement(Int(value[value.startIndex + 1]))
    }
}
