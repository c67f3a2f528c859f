// The one file that decides whether this program talks to a real radio or to the emulator.
// Everything else is written with CoreBluetooth's own names (`CBCentralManager`,
// `CBPeripheralDelegate`…), so the same code ships in the app and runs in tests.
//
// - On Apple platforms it uses CoreBluetooth, unless built with `-D BLEU_EMULATED`
//   (`swift run -Xswiftc -DBLEU_EMULATED CoreBluetoothSwitch`), which swaps in the emulator.
// - Elsewhere (Linux) there is no CoreBluetooth: the emulator it is.
#if canImport(CoreBluetooth) && !BLEU_EMULATED
import CoreBluetooth

let usesEmulator = false
#else
import CoreBluetoothEmulator

typealias CBCentralManager = EmulatedCBCentralManager
typealias CBPeripheralManager = EmulatedCBPeripheralManager
typealias CBPeripheral = EmulatedCBPeripheral
typealias CBCentral = EmulatedCBCentral
typealias CBService = EmulatedCBService
typealias CBMutableService = EmulatedCBMutableService
typealias CBCharacteristic = EmulatedCBCharacteristic
typealias CBMutableCharacteristic = EmulatedCBMutableCharacteristic
typealias CBATTRequest = EmulatedCBATTRequest
typealias CBCentralManagerDelegate = EmulatedCBCentralManagerDelegate
typealias CBPeripheralDelegate = EmulatedCBPeripheralDelegate
typealias CBPeripheralManagerDelegate = EmulatedCBPeripheralManagerDelegate

let usesEmulator = true
#endif
