// Every CoreBluetooth class and delegate declaration the fixture lists
// (Fixtures/corebluetooth-declarations.txt), referenced on its `Emulated` twin with the exact
// Swift type CoreBluetooth gives it. A missing member, another label or another type fails to
// compile: the build is the check, and the test below runs what it can.
import CoreBluetoothEmulator
import Foundation
import Testing

@Suite("The Emulated classes mirror CoreBluetooth's declarations")
struct DeclarationMirrorTests {
    @Test("managers, peers, attributes, requests and channels have CoreBluetooth's members with CoreBluetooth's types")
    func classes() {
        // CBManager
        let _: KeyPath<EmulatedCBManager, CBManagerState> = \.state
        let _: CBManagerAuthorization = EmulatedCBManager.authorization
        let _: KeyPath<EmulatedCBManager, CBManagerAuthorization> = \.authorization

        // CBCentralManager
        let _: () -> EmulatedCBCentralManager = EmulatedCBCentralManager.init
        let _: ((any EmulatedCBCentralManagerDelegate)?, DispatchQueue?) -> EmulatedCBCentralManager = EmulatedCBCentralManager.init(delegate:queue:)
        let _: ((any EmulatedCBCentralManagerDelegate)?, DispatchQueue?, [String: Any]?) -> EmulatedCBCentralManager
            = EmulatedCBCentralManager.init(delegate:queue:options:)
        let _: ReferenceWritableKeyPath<EmulatedCBCentralManager, (any EmulatedCBCentralManagerDelegate)?> = \.delegate
        let _: (EmulatedCBCentralManager) -> ([CBUUID]?, [String: Any]?) -> Void = EmulatedCBCentralManager.scanForPeripherals(withServices:options:)
        let _: (EmulatedCBCentralManager) -> () -> Void = EmulatedCBCentralManager.stopScan
        let _: KeyPath<EmulatedCBCentralManager, Bool> = \.isScanning
        let _: (EmulatedCBCentralManager) -> (EmulatedCBPeripheral, [String: Any]?) -> Void = EmulatedCBCentralManager.connect(_:options:)
        let _: (EmulatedCBCentralManager) -> (EmulatedCBPeripheral) -> Void = EmulatedCBCentralManager.cancelPeripheralConnection(_:)
        let _: (EmulatedCBCentralManager) -> ([UUID]) -> [EmulatedCBPeripheral] = EmulatedCBCentralManager.retrievePeripherals(withIdentifiers:)
        let _: (EmulatedCBCentralManager) -> ([CBUUID]) -> [EmulatedCBPeripheral]
            = EmulatedCBCentralManager.retrieveConnectedPeripherals(withServices:)
        let _: (EmulatedCBCentralManager) -> ([CBConnectionEventMatchingOption: Any]?) -> Void
            = EmulatedCBCentralManager.registerForConnectionEvents(options:)
        let _: (EmulatedCBCentralManager.Feature) -> Bool = EmulatedCBCentralManager.supports(_:)
        let _: EmulatedCBCentralManager.Feature = .extendedScanAndConnect

        // CBPeer, CBPeripheral
        let _: KeyPath<EmulatedCBPeer, UUID> = \.identifier
        let _: ReferenceWritableKeyPath<EmulatedCBPeripheral, (any EmulatedCBPeripheralDelegate)?> = \.delegate
        let _: KeyPath<EmulatedCBPeripheral, String?> = \.name
        let _: KeyPath<EmulatedCBPeripheral, CBPeripheralState> = \.state
        let _: KeyPath<EmulatedCBPeripheral, [EmulatedCBService]?> = \.services
        let _: KeyPath<EmulatedCBPeripheral, Bool> = \.canSendWriteWithoutResponse
        let _: KeyPath<EmulatedCBPeripheral, Bool> = \.ancsAuthorized
        let _: KeyPath<EmulatedCBPeripheral, NSNumber?> = \.rssi
        let _: (EmulatedCBPeripheral) -> () -> Void = EmulatedCBPeripheral.readRSSI
        let _: (EmulatedCBPeripheral) -> ([CBUUID]?) -> Void = EmulatedCBPeripheral.discoverServices(_:)
        let _: (EmulatedCBPeripheral) -> ([CBUUID]?, EmulatedCBService) -> Void = EmulatedCBPeripheral.discoverIncludedServices(_:for:)
        let _: (EmulatedCBPeripheral) -> ([CBUUID]?, EmulatedCBService) -> Void = EmulatedCBPeripheral.discoverCharacteristics(_:for:)
        let _: (EmulatedCBPeripheral) -> (EmulatedCBCharacteristic) -> Void = EmulatedCBPeripheral.discoverDescriptors(for:)
        let _: (EmulatedCBPeripheral) -> (EmulatedCBCharacteristic) -> Void = EmulatedCBPeripheral.readValue(for:)
        let _: (EmulatedCBPeripheral) -> (EmulatedCBDescriptor) -> Void = EmulatedCBPeripheral.readValue(for:)
        let _: (EmulatedCBPeripheral) -> (Data, EmulatedCBCharacteristic, CBCharacteristicWriteType) -> Void
            = EmulatedCBPeripheral.writeValue(_:for:type:)
        let _: (EmulatedCBPeripheral) -> (Data, EmulatedCBDescriptor) -> Void = EmulatedCBPeripheral.writeValue(_:for:)
        let _: (EmulatedCBPeripheral) -> (CBCharacteristicWriteType) -> Int = EmulatedCBPeripheral.maximumWriteValueLength(for:)
        let _: (EmulatedCBPeripheral) -> (Bool, EmulatedCBCharacteristic) -> Void = EmulatedCBPeripheral.setNotifyValue(_:for:)
        let _: (EmulatedCBPeripheral) -> (CBL2CAPPSM) -> Void = EmulatedCBPeripheral.openL2CAPChannel(_:)

        // CBCentral
        let _: KeyPath<EmulatedCBCentral, Int> = \.maximumUpdateValueLength

        // CBPeripheralManager
        let _: () -> EmulatedCBPeripheralManager = EmulatedCBPeripheralManager.init
        let _: ((any EmulatedCBPeripheralManagerDelegate)?, DispatchQueue?) -> EmulatedCBPeripheralManager
            = EmulatedCBPeripheralManager.init(delegate:queue:)
        let _: ((any EmulatedCBPeripheralManagerDelegate)?, DispatchQueue?, [String: Any]?) -> EmulatedCBPeripheralManager
            = EmulatedCBPeripheralManager.init(delegate:queue:options:)
        let _: ReferenceWritableKeyPath<EmulatedCBPeripheralManager, (any EmulatedCBPeripheralManagerDelegate)?> = \.delegate
        let _: () -> CBPeripheralManagerAuthorizationStatus = EmulatedCBPeripheralManager.authorizationStatus
        let _: (EmulatedCBPeripheralManager) -> (EmulatedCBMutableService) -> Void = EmulatedCBPeripheralManager.add(_:)
        let _: (EmulatedCBPeripheralManager) -> (EmulatedCBMutableService) -> Void = EmulatedCBPeripheralManager.remove(_:)
        let _: (EmulatedCBPeripheralManager) -> () -> Void = EmulatedCBPeripheralManager.removeAllServices
        let _: (EmulatedCBPeripheralManager) -> ([String: Any]?) -> Void = EmulatedCBPeripheralManager.startAdvertising(_:)
        let _: (EmulatedCBPeripheralManager) -> () -> Void = EmulatedCBPeripheralManager.stopAdvertising
        let _: KeyPath<EmulatedCBPeripheralManager, Bool> = \.isAdvertising
        let _: (EmulatedCBPeripheralManager) -> (CBPeripheralManagerConnectionLatency, EmulatedCBCentral) -> Void
            = EmulatedCBPeripheralManager.setDesiredConnectionLatency(_:for:)
        let _: (EmulatedCBPeripheralManager) -> (Data, EmulatedCBMutableCharacteristic, [EmulatedCBCentral]?) -> Bool
            = EmulatedCBPeripheralManager.updateValue(_:for:onSubscribedCentrals:)
        let _: (EmulatedCBPeripheralManager) -> (EmulatedCBATTRequest, CBATTError.Code) -> Void
            = EmulatedCBPeripheralManager.respond(to:withResult:)
        let _: (EmulatedCBPeripheralManager) -> (Bool) -> Void = EmulatedCBPeripheralManager.publishL2CAPChannel(withEncryption:)
        let _: (EmulatedCBPeripheralManager) -> (CBL2CAPPSM) -> Void = EmulatedCBPeripheralManager.unpublishL2CAPChannel(_:)

        // CBAttribute, CBService, CBMutableService
        let _: KeyPath<EmulatedCBAttribute, CBUUID> = \.uuid
        let _: KeyPath<EmulatedCBService, EmulatedCBPeripheral?> = \.peripheral
        let _: KeyPath<EmulatedCBService, Bool> = \.isPrimary
        let _: KeyPath<EmulatedCBService, [EmulatedCBService]?> = \.includedServices
        let _: KeyPath<EmulatedCBService, [EmulatedCBCharacteristic]?> = \.characteristics
        let _: (CBUUID, Bool) -> EmulatedCBMutableService = EmulatedCBMutableService.init(type:primary:)
        let _: ReferenceWritableKeyPath<EmulatedCBMutableService, [EmulatedCBService]?> = \.includedServices
        let _: ReferenceWritableKeyPath<EmulatedCBMutableService, [EmulatedCBCharacteristic]?> = \.characteristics

        // CBCharacteristic, CBMutableCharacteristic
        let _: KeyPath<EmulatedCBCharacteristic, EmulatedCBService?> = \.service
        let _: KeyPath<EmulatedCBCharacteristic, Data?> = \.value
        let _: KeyPath<EmulatedCBCharacteristic, [EmulatedCBDescriptor]?> = \.descriptors
        let _: KeyPath<EmulatedCBCharacteristic, CBCharacteristicProperties> = \.properties
        let _: KeyPath<EmulatedCBCharacteristic, Bool> = \.isNotifying
        let _: (CBUUID, CBCharacteristicProperties, Data?, CBAttributePermissions) -> EmulatedCBMutableCharacteristic
            = EmulatedCBMutableCharacteristic.init(type:properties:value:permissions:)
        let _: ReferenceWritableKeyPath<EmulatedCBMutableCharacteristic, CBAttributePermissions> = \.permissions
        let _: ReferenceWritableKeyPath<EmulatedCBMutableCharacteristic, CBCharacteristicProperties> = \.properties
        let _: ReferenceWritableKeyPath<EmulatedCBMutableCharacteristic, Data?> = \.value
        let _: ReferenceWritableKeyPath<EmulatedCBMutableCharacteristic, [EmulatedCBDescriptor]?> = \.descriptors
        let _: KeyPath<EmulatedCBMutableCharacteristic, [EmulatedCBCentral]?> = \.subscribedCentrals

        // CBDescriptor, CBMutableDescriptor
        let _: KeyPath<EmulatedCBDescriptor, EmulatedCBCharacteristic?> = \.characteristic
        let _: KeyPath<EmulatedCBDescriptor, Any?> = \.value
        let _: (CBUUID, Any?) -> EmulatedCBMutableDescriptor = EmulatedCBMutableDescriptor.init(type:value:)

        // CBATTRequest
        let _: KeyPath<EmulatedCBATTRequest, EmulatedCBCentral> = \.central
        let _: KeyPath<EmulatedCBATTRequest, EmulatedCBCharacteristic> = \.characteristic
        let _: KeyPath<EmulatedCBATTRequest, Int> = \.offset
        let _: ReferenceWritableKeyPath<EmulatedCBATTRequest, Data?> = \.value

        // CBL2CAPChannel
        let _: KeyPath<EmulatedCBL2CAPChannel, EmulatedCBPeer?> = \.peer
        let _: KeyPath<EmulatedCBL2CAPChannel, InputStream?> = \.inputStream
        let _: KeyPath<EmulatedCBL2CAPChannel, OutputStream?> = \.outputStream
        let _: KeyPath<EmulatedCBL2CAPChannel, CBL2CAPPSM> = \.psm

        // A value that would not be checked at compile time: the feature set the emulator reports.
        #expect(EmulatedCBCentralManager.supports(.extendedScanAndConnect))
    }

    @Test("the delegate protocols have CoreBluetooth's requirements, class-bound, each with a default")
    func delegates() {
        final class Empty: EmulatedCBCentralManagerDelegate, EmulatedCBPeripheralDelegate, EmulatedCBPeripheralManagerDelegate {}
        let empty = Empty()  // compiles only because every requirement has a default implementation
        let central: any EmulatedCBCentralManagerDelegate = empty
        let _: (EmulatedCBCentralManager) -> Void = central.centralManagerDidUpdateState(_:)
        let _: (EmulatedCBCentralManager, [String: Any]) -> Void = central.centralManager(_:willRestoreState:)
        let _: (EmulatedCBCentralManager, EmulatedCBPeripheral, [String: Any], NSNumber) -> Void
            = central.centralManager(_:didDiscover:advertisementData:rssi:)
        let _: (EmulatedCBCentralManager, EmulatedCBPeripheral) -> Void = central.centralManager(_:didConnect:)
        let _: (EmulatedCBCentralManager, EmulatedCBPeripheral, (any Error)?) -> Void = central.centralManager(_:didFailToConnect:error:)
        let _: (EmulatedCBCentralManager, EmulatedCBPeripheral, (any Error)?) -> Void
            = central.centralManager(_:didDisconnectPeripheral:error:)
        let _: (EmulatedCBCentralManager, EmulatedCBPeripheral, CFAbsoluteTime, Bool, (any Error)?) -> Void
            = central.centralManager(_:didDisconnectPeripheral:timestamp:isReconnecting:error:)
        let _: (EmulatedCBCentralManager, CBConnectionEvent, EmulatedCBPeripheral) -> Void
            = central.centralManager(_:connectionEventDidOccur:for:)
        let _: (EmulatedCBCentralManager, EmulatedCBPeripheral) -> Void = central.centralManager(_:didUpdateANCSAuthorizationFor:)

        let peripheral: any EmulatedCBPeripheralDelegate = empty
        let _: (EmulatedCBPeripheral) -> Void = peripheral.peripheralDidUpdateName(_:)
        let _: (EmulatedCBPeripheral, [EmulatedCBService]) -> Void = peripheral.peripheral(_:didModifyServices:)
        let _: (EmulatedCBPeripheral, (any Error)?) -> Void = peripheral.peripheralDidUpdateRSSI(_:error:)
        let _: (EmulatedCBPeripheral, NSNumber, (any Error)?) -> Void = peripheral.peripheral(_:didReadRSSI:error:)
        let _: (EmulatedCBPeripheral, (any Error)?) -> Void = peripheral.peripheral(_:didDiscoverServices:)
        let _: (EmulatedCBPeripheral, EmulatedCBService, (any Error)?) -> Void = peripheral.peripheral(_:didDiscoverIncludedServicesFor:error:)
        let _: (EmulatedCBPeripheral, EmulatedCBService, (any Error)?) -> Void = peripheral.peripheral(_:didDiscoverCharacteristicsFor:error:)
        let _: (EmulatedCBPeripheral, EmulatedCBCharacteristic, (any Error)?) -> Void = peripheral.peripheral(_:didUpdateValueFor:error:)
        let _: (EmulatedCBPeripheral, EmulatedCBCharacteristic, (any Error)?) -> Void = peripheral.peripheral(_:didWriteValueFor:error:)
        let _: (EmulatedCBPeripheral, EmulatedCBCharacteristic, (any Error)?) -> Void
            = peripheral.peripheral(_:didUpdateNotificationStateFor:error:)
        let _: (EmulatedCBPeripheral, EmulatedCBCharacteristic, (any Error)?) -> Void
            = peripheral.peripheral(_:didDiscoverDescriptorsFor:error:)
        let _: (EmulatedCBPeripheral, EmulatedCBDescriptor, (any Error)?) -> Void = peripheral.peripheral(_:didUpdateValueFor:error:)
        let _: (EmulatedCBPeripheral, EmulatedCBDescriptor, (any Error)?) -> Void = peripheral.peripheral(_:didWriteValueFor:error:)
        let _: (EmulatedCBPeripheral) -> Void = peripheral.peripheralIsReady(toSendWriteWithoutResponse:)
        let _: (EmulatedCBPeripheral, EmulatedCBL2CAPChannel?, (any Error)?) -> Void = peripheral.peripheral(_:didOpen:error:)

        let manager: any EmulatedCBPeripheralManagerDelegate = empty
        let _: (EmulatedCBPeripheralManager) -> Void = manager.peripheralManagerDidUpdateState(_:)
        let _: (EmulatedCBPeripheralManager, [String: Any]) -> Void = manager.peripheralManager(_:willRestoreState:)
        let _: (EmulatedCBPeripheralManager, EmulatedCBService, (any Error)?) -> Void = manager.peripheralManager(_:didAdd:error:)
        let _: (EmulatedCBPeripheralManager, (any Error)?) -> Void = manager.peripheralManagerDidStartAdvertising(_:error:)
        let _: (EmulatedCBPeripheralManager, EmulatedCBCentral, EmulatedCBCharacteristic) -> Void
            = manager.peripheralManager(_:central:didSubscribeTo:)
        let _: (EmulatedCBPeripheralManager, EmulatedCBCentral, EmulatedCBCharacteristic) -> Void
            = manager.peripheralManager(_:central:didUnsubscribeFrom:)
        let _: (EmulatedCBPeripheralManager) -> Void = manager.peripheralManagerIsReady(toUpdateSubscribers:)
        let _: (EmulatedCBPeripheralManager, EmulatedCBATTRequest) -> Void = manager.peripheralManager(_:didReceiveRead:)
        let _: (EmulatedCBPeripheralManager, [EmulatedCBATTRequest]) -> Void = manager.peripheralManager(_:didReceiveWrite:)
        let _: (EmulatedCBPeripheralManager, CBL2CAPPSM, (any Error)?) -> Void = manager.peripheralManager(_:didPublishL2CAPChannel:error:)
        let _: (EmulatedCBPeripheralManager, CBL2CAPPSM, (any Error)?) -> Void = manager.peripheralManager(_:didUnpublishL2CAPChannel:error:)
        let _: (EmulatedCBPeripheralManager, EmulatedCBL2CAPChannel?, (any Error)?) -> Void = manager.peripheralManager(_:didOpen:error:)

        // An NSObject subclass works as a delegate too.
        final class ObjectDelegate: NSObject, EmulatedCBCentralManagerDelegate {}
        let _: any EmulatedCBCentralManagerDelegate = ObjectDelegate()
        #expect(type(of: central) == Empty.self)
    }
}
