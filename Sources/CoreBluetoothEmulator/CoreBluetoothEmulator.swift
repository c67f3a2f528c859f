// `import CoreBluetoothEmulator` alone gives everything a CoreBluetoothEmulator user writes:
// the `EmulatedCB…` classes, the emulator's bus and configuration presets, and — on Apple
// platforms from CoreBluetooth itself, elsewhere from this module — CoreBluetooth's value
// types (`CBUUID`, `CBCharacteristicProperties`, `CBError`, the advertisement keys…).
@_exported import BleuEmulator
#if canImport(CoreBluetooth)
@_exported import CoreBluetooth
#endif
