// The one place that decides which CoreBluetooth this module is written against. Every other
// file uses CoreBluetooth's own names (`CBCentralManager`, `CBPeripheralDelegate`…): on Apple
// platforms they are the framework's; elsewhere they name CoreBluetoothEmulator's classes, which
// have CoreBluetooth's API on Bleu's emulator, and CoreBluetooth's value types (`CBUUID`,
// `CBError`…) come from CoreBluetoothVocabulary under their own names. So the code an iPhone
// runs is the code this project's tests run on Linux.
//
// Swift's imports hold for the file that writes them: for CoreBluetooth's names to reach the
// module's other files from this one, the import is `@_exported`. So on Apple platforms a file
// that imports BleuCoreBluetooth sees CoreBluetooth's names too. Elsewhere the names are this
// module's internal type aliases, which every file sees, and nothing is re-exported.
import Foundation
#if canImport(CoreBluetooth)
@_exported import CoreBluetooth
#else
import CoreBluetoothEmulator

typealias CBCentralManager = EmulatedCBCentralManager
typealias CBCentralManagerDelegate = EmulatedCBCentralManagerDelegate
typealias CBPeripheral = EmulatedCBPeripheral
typealias CBPeripheralDelegate = EmulatedCBPeripheralDelegate
typealias CBPeripheralManager = EmulatedCBPeripheralManager
typealias CBPeripheralManagerDelegate = EmulatedCBPeripheralManagerDelegate
typealias CBCentral = EmulatedCBCentral
typealias CBAttribute = EmulatedCBAttribute
typealias CBService = EmulatedCBService
typealias CBMutableService = EmulatedCBMutableService
typealias CBCharacteristic = EmulatedCBCharacteristic
typealias CBMutableCharacteristic = EmulatedCBMutableCharacteristic
typealias CBDescriptor = EmulatedCBDescriptor
typealias CBMutableDescriptor = EmulatedCBMutableDescriptor
typealias CBATTRequest = EmulatedCBATTRequest
typealias CBL2CAPChannel = EmulatedCBL2CAPChannel
#endif

/// Has `stream` report its events to its delegate on `queue`, where the channel's other
/// objects live. CoreBluetooth's L2CAP streams are CoreFoundation streams, which report on a
/// dispatch queue once given one; the emulator's streams already report on the queue of the
/// manager that opened the channel (which is `queue`), so there is nothing to do.
func deliverEvents(of stream: Stream, on queue: DispatchQueue) {
    #if canImport(CoreBluetooth)
    // `InputStream` and `CFReadStream` (`OutputStream` and `CFWriteStream`) are toll-free
    // bridged: the same object under two types.
    if let input = stream as? InputStream {
        CFReadStreamSetDispatchQueue(unsafeBitCast(input, to: CFReadStream.self), queue)
    } else if let output = stream as? OutputStream {
        CFWriteStreamSetDispatchQueue(unsafeBitCast(output, to: CFWriteStream.self), queue)
    }
    #endif
}
