import BleuCore

/// What failed when a transport opened or used its device or socket
/// (``HCITransportError/io(_:)``): the step, what it was done to, and the system's error.
public struct TransportFailure: Sendable, Hashable, CustomStringConvertible {
    /// A step of opening or using a transport.
    public enum Step: Sendable, Hashable {
        /// Connecting to a TCP endpoint (a virtual controller).
        case connect
        /// Taking over an open file descriptor.
        case adoptDescriptor
        /// Creating the HCI socket.
        case createSocket
        /// Binding the HCI device as a user channel (EBUSY: the device is up — power it off
        /// first; EPERM: run with CAP_NET_ADMIN).
        case bindUserChannel
        /// Opening a device file.
        case open
        /// Reading the device's terminal settings (a device that has none is not a serial port).
        case readSerialSettings
        /// Setting the serial line's speed and flow control.
        case configureSerial
        /// Creating a capture file.
        case createCapture
        /// Reading from the device or socket.
        case read
        /// Writing to the device or socket.
        case write
    }

    /// The step that failed.
    public var step: Step
    /// What the step was done to: `host:port`, a path, `hci0`, a descriptor number.
    public var target: String
    /// The system's `errno`, when the failure came with one.
    public var errno: Int32?
    /// The system's or SwiftNIO's account of the failure.
    public var message: String

    /// A failure of `step` on `target`.
    public init(_ step: Step, target: String, errno: Int32? = nil, message: String) {
        self.step = step
        self.target = target
        self.errno = errno
        self.message = message
    }

    /// A failure of `step` on `target` with the calling thread's current `errno`.
    static func system(_ step: Step, target: String) -> TransportFailure {
        let code = currentErrno()
        return TransportFailure(step, target: target, errno: code, message: String(cString: strerror(code)))
    }

    public var description: String {
        let what = switch step {
        case .connect: "cannot connect to \(target) (is the controller listening?)"
        case .adoptDescriptor: "cannot use file descriptor \(target)"
        case .createSocket: "cannot create an HCI socket"
        case .bindUserChannel: "cannot bind \(target) as a user channel (power the device off and run with CAP_NET_ADMIN)"
        case .open: "cannot open \(target) (check the path and permissions)"
        case .readSerialSettings: "\(target) is not a serial device"
        case .configureSerial: "cannot configure \(target)"
        case .createCapture: "cannot create the capture file \(target)"
        case .read: "reading \(target) failed"
        case .write: "writing \(target) failed"
        }
        return "\(what): \(message)"
    }
}

#if canImport(Darwin)
import Darwin
private func currentErrno() -> Int32 { Darwin.errno }
#else
import Glibc
private func currentErrno() -> Int32 { Glibc.errno }
#endif
