// HCIScan — scanning on a real or virtual controller with BleuHCI, Bleu's own host stack.
//
// Opens the controller an endpoint names, starts a BleuCore `CentralManager` on it
// (`HCICentralManager`), and prints every device it hears for a few seconds: address, RSSI,
// name and services. The same central runs typed GATT, actors and the orchestrator unchanged.
//
//     swift run HCIScan tcp:127.0.0.1:9000        # a virtual controller (Bumble's, say)
//     swift run HCIScan /dev/ttyACM0 10           # a UART board, scanning for 10 seconds
//     swift run HCIScan hci-socket:0              # a dongle through Linux's HCI user channel
//
// To try it without hardware: `.venv/bin/python scripts/bumble_link.py --peer advertise` (after
// `scripts/python-env.sh`) runs two Bumble virtual controllers on one link, a device advertising
// on the second, and prints their ports: scan on `tcp:127.0.0.1:<port_a>`.
// Without an argument it prints its usage and exits with 2; without a controller there, one
// line saying so, and exits with 1.

import BleuCore
import BleuHCI
import Foundation

/// Prints `message` on standard error and exits with `status`.
func fail(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let text = arguments.first else {
    fail("usage: HCIScan ENDPOINT [SECONDS]  (ENDPOINT: tcp:HOST:PORT, serial:PATH[@BAUD], /dev/… or hci-socket:N)", status: 2)
}
guard let endpoint = HCIEndpoint(text) else {
    fail("error: '\(text)' is not a controller endpoint; use tcp:HOST:PORT, serial:PATH[@BAUD] or hci-socket:N", status: 2)
}
guard let seconds = arguments.count > 1 ? Double(arguments[1]) : 5, seconds > 0 else {
    fail("error: '\(arguments[1])' is not a number of seconds", status: 2)
}

let radio: HCIRadio
do {
    radio = try await HCIRadio.open(endpoint)  // resets and initialises the controller
} catch {
    fail("error: no controller at \(endpoint): \(error)")
}
let central = HCICentralManager(radio: radio)
let advertisements = try await central.scan(ScanOptions(allowDuplicates: false))  // each device once
let timer = Task {  // the scan's duration: the stream ends when the scan stops
    try? await Task.sleep(for: .seconds(seconds))
    await central.stopScan()
}
print("scanning \(endpoint) for \(seconds) s")
var count = 0
for try await advertisement in advertisements {
    count += 1
    let address = await radio.address(of: advertisement.peripheral).map { "\($0.address) (\($0.type))" }
    let services = advertisement.data.serviceUUIDs.map(\.description).joined(separator: ", ")
    print("\(address ?? advertisement.peripheral.uuidString)  \(advertisement.rssi) dBm"
          + "  \(advertisement.localName.map { "\"\($0)\"" } ?? "(no name)")"
          + (services.isEmpty ? "" : "  services: \(services)"))
}
await timer.value
print("\(count) device\(count == 1 ? "" : "s") heard")
await radio.stop()
