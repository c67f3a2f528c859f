// `import CoreBluetoothEmulator` alone gives everything a CoreBluetoothEmulator user writes:
// the `EmulatedCB…` classes, the emulator's bus and configuration presets, and — on Apple
// platforms from CoreBluetooth itself, elsewhere from CoreBluetoothVocabulary, re-exported
// here — CoreBluetooth's value types (`CBUUID`, `CBCharacteristicProperties`, `CBError`, the
// advertisement keys…).
@_exported import BleuEmulator
@_exported import CoreBluetoothVocabulary
#if canImport(CoreBluetooth)
@_exported import CoreBluetooth
#endif
