// Switching between production and test code: the monitor and the sensor are written once,
// with CoreBluetooth's names; on Linux (or with -D BLEU_EMULATED) both run on Bleu's emulator
// in this one process. Prints five measurements and exits 0; exits 1 after 10 s without them.
import Dispatch
import Foundation
#if !(canImport(CoreBluetooth) && !BLEU_EMULATED)
import CoreBluetoothEmulator
#endif

print(usesEmulator ? "radio: Bleu's emulator (EmulatorBus.shared)" : "radio: CoreBluetooth")
let sensor = usesEmulator ? SimulatedSensor() : nil
var received: [Int] = []
let monitor = HeartRateMonitor { bpm in
    received.append(bpm)
    print("heart rate: \(bpm) bpm")
    if received.count == 5 {
        print("ok: five measurements")
        exit(0)
    }
    sensor?.beat()
}
DispatchQueue.main.asyncAfter(deadline: .now() + 10) {
    print("error: \(received.count) measurements in 10 s")
    exit(1)
}
withExtendedLifetime((monitor, sensor)) { dispatchMain() }
