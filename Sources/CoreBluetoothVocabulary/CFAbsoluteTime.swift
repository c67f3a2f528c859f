// CoreBluetooth's `didDisconnectPeripheral:timestamp:` callback takes a CoreFoundation time;
// Linux's Foundation does not export the type, so it is given here under its own name.
#if !canImport(Darwin)
import Foundation

/// Seconds since the reference date (1 January 2001, UTC), as CoreFoundation counts them.
public typealias CFAbsoluteTime = Double
#endif
