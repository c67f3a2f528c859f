import BleuCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOPosix

/// Opens a serial (UART) device for H4: raw mode, the given baud rate, optional RTS/CTS flow
/// control — what a USB-to-UART HCI board (a Zephyr `hci_uart` build, a CYW43 module) needs.
public enum SerialPort {
    /// The rates ``open(path:baudRate:hardwareFlowControl:group:)`` accepts.
    public static let supportedBaudRates = [9600, 19200, 38400, 57600, 115_200, 230_400, 460_800, 921_600, 1_000_000]

    /// Opens `path` (`/dev/ttyACM0`, `/dev/ttyUSB0`, a pty) and returns an H4 transport over it.
    /// Throws ``HCITransportError/io(_:)`` naming the device and the system error.
    public static func open(path: String, baudRate: Int = 115_200, hardwareFlowControl: Bool = true,
                            group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> NIOHCITransport {
        let fd = try configure(path: path, baudRate: baudRate, hardwareFlowControl: hardwareFlowControl)
        return try await NIOHCITransport.open(fileDescriptor: fd, group: group)
    }

    /// Opens and configures the device; returns its descriptor.
    static func configure(path: String, baudRate: Int, hardwareFlowControl: Bool) throws -> CInt {
        guard let speed = speedConstant(baudRate) else {
            throw HCITransportError.unsupportedBaudRate(baudRate, supported: supportedBaudRates)
        }
        #if canImport(Darwin)
        let fd = Darwin.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK)
        #else
        let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK)
        #endif
        guard fd >= 0 else { throw HCITransportError.io(.system(.open, target: path)) }
        var t = termios()
        guard tcgetattr(fd, &t) == 0 else {
            let failure = TransportFailure.system(.readSerialSettings, target: path)
            _ = close(fd)
            throw HCITransportError.io(failure)
        }
        cfmakeraw(&t)
        cfsetispeed(&t, speed)
        cfsetospeed(&t, speed)
        t.c_cflag |= tcflag_t(CLOCAL | CREAD)
        #if os(Linux)
        let rtscts = tcflag_t(CRTSCTS)
        #else
        let rtscts = tcflag_t(CCTS_OFLOW | CRTS_IFLOW)
        #endif
        if hardwareFlowControl { t.c_cflag |= rtscts } else { t.c_cflag &= ~rtscts }
        guard tcsetattr(fd, TCSANOW, &t) == 0 else {
            let failure = TransportFailure.system(.configureSerial, target: path)
            _ = close(fd)
            throw HCITransportError.io(failure)
        }
        _ = tcflush(fd, TCIOFLUSH)
        return fd
    }

    private static func speedConstant(_ rate: Int) -> speed_t? {
        switch rate {
        case 9600: speed_t(B9600)
        case 19200: speed_t(B19200)
        case 38400: speed_t(B38400)
        case 57600: speed_t(B57600)
        case 115_200: speed_t(B115200)
        case 230_400: speed_t(B230400)
        #if os(Linux)
        case 460_800: speed_t(B460800)
        case 921_600: speed_t(B921600)
        case 1_000_000: speed_t(B1000000)
        #endif
        default: nil
        }
    }
}
