import Foundation

/// CoreBluetooth's `CBPeripheralDelegate`, for ``EmulatedCBPeripheral``. Every method has an
/// empty default; class-bound, so a plain Swift class can be a delegate.
public protocol EmulatedCBPeripheralDelegate: AnyObject {
    /// The peripheral's name changed.
    func peripheralDidUpdateName(_ peripheral: EmulatedCBPeripheral)
    /// The peripheral's database changed (Service Changed): these services are gone; discover again.
    func peripheral(_ peripheral: EmulatedCBPeripheral, didModifyServices invalidatedServices: [EmulatedCBService])
    /// Deprecated by CoreBluetooth (use ``peripheral(_:didReadRSSI:error:)``); never called.
    func peripheralDidUpdateRSSI(_ peripheral: EmulatedCBPeripheral, error: (any Error)?)
    /// ``EmulatedCBPeripheral/readRSSI()`` completed.
    func peripheral(_ peripheral: EmulatedCBPeripheral, didReadRSSI RSSI: NSNumber, error: (any Error)?)
    /// ``EmulatedCBPeripheral/discoverServices(_:)`` completed; see ``EmulatedCBPeripheral/services``.
    func peripheral(_ peripheral: EmulatedCBPeripheral, didDiscoverServices error: (any Error)?)
    /// ``EmulatedCBPeripheral/discoverIncludedServices(_:for:)`` completed.
    func peripheral(_ peripheral: EmulatedCBPeripheral, didDiscoverIncludedServicesFor service: EmulatedCBService,
                    error: (any Error)?)
    /// ``EmulatedCBPeripheral/discoverCharacteristics(_:for:)`` completed.
    func peripheral(_ peripheral: EmulatedCBPeripheral, didDiscoverCharacteristicsFor service: EmulatedCBService,
                    error: (any Error)?)
    /// A read completed, or a notification or indication arrived; see ``EmulatedCBCharacteristic/value``.
    func peripheral(_ peripheral: EmulatedCBPeripheral, didUpdateValueFor characteristic: EmulatedCBCharacteristic,
                    error: (any Error)?)
    /// A write with response completed.
    func peripheral(_ peripheral: EmulatedCBPeripheral, didWriteValueFor characteristic: EmulatedCBCharacteristic,
                    error: (any Error)?)
    /// ``EmulatedCBPeripheral/setNotifyValue(_:for:)`` completed.
    func peripheral(_ peripheral: EmulatedCBPeripheral, didUpdateNotificationStateFor characteristic: EmulatedCBCharacteristic,
                    error: (any Error)?)
    /// ``EmulatedCBPeripheral/discoverDescriptors(for:)`` completed.
    func peripheral(_ peripheral: EmulatedCBPeripheral, didDiscoverDescriptorsFor characteristic: EmulatedCBCharacteristic,
                    error: (any Error)?)
    /// A descriptor read completed; see ``EmulatedCBDescriptor/value``.
    func peripheral(_ peripheral: EmulatedCBPeripheral, didUpdateValueFor descriptor: EmulatedCBDescriptor,
                    error: (any Error)?)
    /// A descriptor write completed.
    func peripheral(_ peripheral: EmulatedCBPeripheral, didWriteValueFor descriptor: EmulatedCBDescriptor,
                    error: (any Error)?)
    /// The link has room for writes without response again.
    func peripheralIsReady(toSendWriteWithoutResponse peripheral: EmulatedCBPeripheral)
    /// ``EmulatedCBPeripheral/openL2CAPChannel(_:)`` completed.
    func peripheral(_ peripheral: EmulatedCBPeripheral, didOpen channel: EmulatedCBL2CAPChannel?, error: (any Error)?)
}

extension EmulatedCBPeripheralDelegate {
    public func peripheralDidUpdateName(_ peripheral: EmulatedCBPeripheral) {}
    public func peripheral(_ peripheral: EmulatedCBPeripheral, didModifyServices invalidatedServices: [EmulatedCBService]) {}
    public func peripheralDidUpdateRSSI(_ peripheral: EmulatedCBPeripheral, error: (any Error)?) {}
    public func peripheral(_ peripheral: EmulatedCBPeripheral, didReadRSSI RSSI: NSNumber, error: (any Error)?) {}
    public func peripheral(_ peripheral: EmulatedCBPeripheral, didDiscoverServices error: (any Error)?) {}
    public func peripheral(_ peripheral: EmulatedCBPeripheral, didDiscoverIncludedServicesFor service: EmulatedCBService,
                           error: (any Error)?) {}
    public func peripheral(_ peripheral: EmulatedCBPeripheral, didDiscoverCharacteristicsFor service: EmulatedCBService,
                           error: (any Error)?) {}
    public func peripheral(_ peripheral: EmulatedCBPeripheral, didUpdateValueFor characteristic: EmulatedCBCharacteristic,
                           error: (any Error)?) {}
    public func peripheral(_ peripheral: EmulatedCBPeripheral, didWriteValueFor characteristic: EmulatedCBCharacteristic,
                           error: (any Error)?) {}
    public func peripheral(_ peripheral: EmulatedCBPeripheral,
                           didUpdateNotificationStateFor characteristic: EmulatedCBCharacteristic, error: (any Error)?) {}
    public func peripheral(_ peripheral: EmulatedCBPeripheral,
                           didDiscoverDescriptorsFor characteristic: EmulatedCBCharacteristic, error: (any Error)?) {}
    public func peripheral(_ peripheral: EmulatedCBPeripheral, didUpdateValueFor descriptor: EmulatedCBDescriptor,
                           error: (any Error)?) {}
    public func peripheral(_ peripheral: EmulatedCBPeripheral, didWriteValueFor descriptor: EmulatedCBDescriptor,
                           error: (any Error)?) {}
    public func peripheralIsReady(toSendWriteWithoutResponse peripheral: EmulatedCBPeripheral) {}
    public func peripheral(_ peripheral: EmulatedCBPeripheral, didOpen channel: EmulatedCBL2CAPChannel?,
                           error: (any Error)?) {}
}
