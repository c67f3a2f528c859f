/// Devices created with a restore identifier, by that identifier: a manager created later with
/// the same identifier takes the device over, with its links, scan and subscriptions.
struct RestorableDevices {
    var centrals: [String: CentralKey] = [:]
    var peripherals: [String: PeripheralKey] = [:]
}
