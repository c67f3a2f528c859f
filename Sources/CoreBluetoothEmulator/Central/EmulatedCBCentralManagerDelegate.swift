import Foundation

/// CoreBluetooth's `CBCentralManagerDelegate`, for ``EmulatedCBCentralManager``. Every method
/// has an empty default, so a delegate implements only what it uses. The protocol is
/// class-bound (`AnyObject`), so a plain Swift class can be a delegate; an `NSObject`
/// subclass works too.
public protocol EmulatedCBCentralManagerDelegate: AnyObject {
    /// The manager's ``EmulatedCBManager/state`` changed. The first callback of every manager.
    func centralManagerDidUpdateState(_ central: EmulatedCBCentralManager)
    /// The manager restored its predecessor's state (restore identifier given at init); comes
    /// before ``centralManagerDidUpdateState(_:)``.
    func centralManager(_ central: EmulatedCBCentralManager, willRestoreState dict: [String: Any])
    /// A scan found a peripheral (again, with `CBCentralManagerScanOptionAllowDuplicatesKey`).
    func centralManager(_ central: EmulatedCBCentralManager, didDiscover peripheral: EmulatedCBPeripheral,
                        advertisementData: [String: Any], rssi RSSI: NSNumber)
    /// A connection began by ``EmulatedCBCentralManager/connect(_:options:)`` is up.
    func centralManager(_ central: EmulatedCBCentralManager, didConnect peripheral: EmulatedCBPeripheral)
    /// A connection attempt failed (`CBError`).
    func centralManager(_ central: EmulatedCBCentralManager, didFailToConnect peripheral: EmulatedCBPeripheral,
                        error: (any Error)?)
    /// A connection ended: `nil` after ``EmulatedCBCentralManager/cancelPeripheralConnection(_:)``, else a `CBError`.
    func centralManager(_ central: EmulatedCBCentralManager, didDisconnectPeripheral peripheral: EmulatedCBPeripheral,
                        error: (any Error)?)
    /// A connection ended (the form CoreBluetooth calls instead of the one above when the
    /// delegate implements it). The emulator never reconnects on its own: `isReconnecting` is `false`.
    func centralManager(_ central: EmulatedCBCentralManager, didDisconnectPeripheral peripheral: EmulatedCBPeripheral,
                        timestamp: CFAbsoluteTime, isReconnecting: Bool, error: (any Error)?)
    /// A peer matching ``EmulatedCBCentralManager/registerForConnectionEvents(options:)`` connected or disconnected.
    func centralManager(_ central: EmulatedCBCentralManager, connectionEventDidOccur event: CBConnectionEvent,
                        for peripheral: EmulatedCBPeripheral)
    /// The peripheral's ANCS authorization changed.
    func centralManager(_ central: EmulatedCBCentralManager, didUpdateANCSAuthorizationFor peripheral: EmulatedCBPeripheral)
}

extension EmulatedCBCentralManagerDelegate {
    public func centralManagerDidUpdateState(_ central: EmulatedCBCentralManager) {}
    public func centralManager(_ central: EmulatedCBCentralManager, willRestoreState dict: [String: Any]) {}
    public func centralManager(_ central: EmulatedCBCentralManager, didDiscover peripheral: EmulatedCBPeripheral,
                               advertisementData: [String: Any], rssi RSSI: NSNumber) {}
    public func centralManager(_ central: EmulatedCBCentralManager, didConnect peripheral: EmulatedCBPeripheral) {}
    public func centralManager(_ central: EmulatedCBCentralManager, didFailToConnect peripheral: EmulatedCBPeripheral,
                               error: (any Error)?) {}
    public func centralManager(_ central: EmulatedCBCentralManager, didDisconnectPeripheral peripheral: EmulatedCBPeripheral,
                               error: (any Error)?) {}
    public func centralManager(_ central: EmulatedCBCentralManager, didDisconnectPeripheral peripheral: EmulatedCBPeripheral,
                               timestamp: CFAbsoluteTime, isReconnecting: Bool, error: (any Error)?) {
        // As CoreBluetooth: a delegate without this form hears the one without a timestamp.
        centralManager(central, didDisconnectPeripheral: peripheral, error: error)
    }
    public func centralManager(_ central: EmulatedCBCentralManager, connectionEventDidOccur event: CBConnectionEvent,
                               for peripheral: EmulatedCBPeripheral) {}
    public func centralManager(_ central: EmulatedCBCentralManager,
                               didUpdateANCSAuthorizationFor peripheral: EmulatedCBPeripheral) {}
}
