import Foundation
#if canImport(CoreBluetooth) && !BLEU_EMULATED
import CoreBluetooth
#else
import CoreBluetoothEmulator
#endif

/// A heart-rate sensor in the peripheral role: what the test side (or a firmware simulator)
/// runs. It sends a measurement each time the monitor asks for more.
final class SimulatedSensor: NSObject, CBPeripheralManagerDelegate {
    private var manager: CBPeripheralManager!
    private let measurement = CBMutableCharacteristic(type: CBUUID(string: "2A37"), properties: [.notify],
                                                      value: nil, permissions: [.readable])
    private var beats = 60

    override init() {
        super.init()
        manager = CBPeripheralManager(delegate: self, queue: nil)
    }

    /// Sends the next measurement; `false` when the queue is full (a ready callback follows).
    @discardableResult
    func beat() -> Bool {
        beats += 1
        return manager.updateValue(Data([0x00, UInt8(beats)]), for: measurement, onSubscribedCentrals: nil)
    }

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        guard peripheral.state == .poweredOn else { return }
        let service = CBMutableService(type: CBUUID(string: "180D"), primary: true)
        service.characteristics = [measurement]
        peripheral.add(service)
        peripheral.startAdvertising([CBAdvertisementDataLocalNameKey: "Sensor",
                                     CBAdvertisementDataServiceUUIDsKey: [service.uuid]])
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral,
                           didSubscribeTo characteristic: CBCharacteristic) {
        beat()
    }
}
