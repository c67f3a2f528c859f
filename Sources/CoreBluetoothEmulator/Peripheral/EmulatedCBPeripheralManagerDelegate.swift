import Foundation

/// CoreBluetooth's `CBPeripheralManagerDelegate`, for ``EmulatedCBPeripheralManager``. Every
/// method has an empty default; class-bound, so a plain Swift class can be a delegate.
public protocol EmulatedCBPeripheralManagerDelegate: AnyObject {
    /// The manager's ``EmulatedCBManager/state`` changed. The first callback of every manager.
    func peripheralManagerDidUpdateState(_ peripheral: EmulatedCBPeripheralManager)
    /// The manager restored its predecessor's services and advertising; comes before
    /// ``peripheralManagerDidUpdateState(_:)``.
    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, willRestoreState dict: [String: Any])
    /// ``EmulatedCBPeripheralManager/add(_:)`` completed.
    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didAdd service: EmulatedCBService, error: (any Error)?)
    /// ``EmulatedCBPeripheralManager/startAdvertising(_:)`` completed.
    func peripheralManagerDidStartAdvertising(_ peripheral: EmulatedCBPeripheralManager, error: (any Error)?)
    /// A central enabled notifications or indications of a characteristic.
    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, central: EmulatedCBCentral,
                           didSubscribeTo characteristic: EmulatedCBCharacteristic)
    /// A central disabled them, or disconnected.
    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, central: EmulatedCBCentral,
                           didUnsubscribeFrom characteristic: EmulatedCBCharacteristic)
    /// The notification queue has room again after ``EmulatedCBPeripheralManager/updateValue(_:for:onSubscribedCentrals:)`` returned `false`.
    func peripheralManagerIsReady(toUpdateSubscribers peripheral: EmulatedCBPeripheralManager)
    /// A central reads a dynamic characteristic: set the request's value and answer with
    /// ``EmulatedCBPeripheralManager/respond(to:withResult:)``.
    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didReceiveRead request: EmulatedCBATTRequest)
    /// A central writes: answer the first request once (for writes that need a response).
    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didReceiveWrite requests: [EmulatedCBATTRequest])
    /// ``EmulatedCBPeripheralManager/publishL2CAPChannel(withEncryption:)`` completed.
    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didPublishL2CAPChannel PSM: CBL2CAPPSM,
                           error: (any Error)?)
    /// ``EmulatedCBPeripheralManager/unpublishL2CAPChannel(_:)`` completed.
    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didUnpublishL2CAPChannel PSM: CBL2CAPPSM,
                           error: (any Error)?)
    /// A central opened an L2CAP channel on a published PSM.
    func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didOpen channel: EmulatedCBL2CAPChannel?,
                           error: (any Error)?)
}

extension EmulatedCBPeripheralManagerDelegate {
    public func peripheralManagerDidUpdateState(_ peripheral: EmulatedCBPeripheralManager) {}
    public func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, willRestoreState dict: [String: Any]) {}
    public func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didAdd service: EmulatedCBService,
                                  error: (any Error)?) {}
    public func peripheralManagerDidStartAdvertising(_ peripheral: EmulatedCBPeripheralManager, error: (any Error)?) {}
    public func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, central: EmulatedCBCentral,
                                  didSubscribeTo characteristic: EmulatedCBCharacteristic) {}
    public func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, central: EmulatedCBCentral,
                                  didUnsubscribeFrom characteristic: EmulatedCBCharacteristic) {}
    public func peripheralManagerIsReady(toUpdateSubscribers peripheral: EmulatedCBPeripheralManager) {}
    public func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didReceiveRead request: EmulatedCBATTRequest) {}
    public func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didReceiveWrite requests: [EmulatedCBATTRequest]) {}
    public func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didPublishL2CAPChannel PSM: CBL2CAPPSM,
                                  error: (any Error)?) {}
    public func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didUnpublishL2CAPChannel PSM: CBL2CAPPSM,
                                  error: (any Error)?) {}
    public func peripheralManager(_ peripheral: EmulatedCBPeripheralManager, didOpen channel: EmulatedCBL2CAPChannel?,
                                  error: (any Error)?) {}
}
