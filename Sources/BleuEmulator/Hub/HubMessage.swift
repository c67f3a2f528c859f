import BleuCore
import Foundation

// The messages between a hub and its clients (see Docs/EmulatorLinkModel.md, "Several
// processes"). A client's managers are the same classes as on an in-process bus; each of
// their calls travels as a request naming the manager, the hub runs it on its own manager
// for that client, and the result, the events and the stream elements come back in the
// order the medium produced them.

/// A call of a central manager, as it crosses to the hub.
enum CentralCall: Equatable {
    case state
    /// Opens an event stream under the client's `stream` number: pulled one event at a time
    /// (`push` false), or pushed as they happen.
    case events(stream: UInt32, push: Bool)
    case scan(ScanOptions, stream: UInt32, push: Bool)
    case stopScan
    case connect(UUID, timeout: Duration?)
    case cancelConnection(UUID)
    case isConnected(UUID)
    case retrievePeripherals([UUID])
    case retrieveConnectedPeripherals([BluetoothUUID])
    case discoverServices([BluetoothUUID]?, on: UUID)
    case discoverIncludedServices([BluetoothUUID]?, for: RemoteService)
    case discoverCharacteristics([BluetoothUUID]?, for: RemoteService)
    case discoverDescriptors(RemoteCharacteristic)
    case read(RemoteCharacteristic)
    case write(Data, to: RemoteCharacteristic, WriteType)
    case canSendWriteWithoutResponse(UUID)
    case readDescriptor(RemoteDescriptor)
    case writeDescriptor(Data, to: RemoteDescriptor)
    case subscribe(RemoteCharacteristic, stream: UInt32, push: Bool)
    case unsubscribe(RemoteCharacteristic)
    case attMTU(UUID)
    case maximumWriteValueLength(UUID, WriteType)
    case readRSSI(UUID)
    case securityLevel(UUID)
    case pair(UUID, minimum: SecurityLevel)
    case openL2CAPChannel(psm: UInt16, on: UUID)
    /// Whether the client answers passkey requests for this central.
    case setPasskeyHandler(Bool)
}

/// A call of a peripheral manager, as it crosses to the hub.
enum PeripheralCall: EqualByBytes {
    case state
    case events(stream: UInt32, push: Bool)
    case add(ServiceDefinition)
    case remove(PublishedService)
    case removeAllServices
    case startAdvertising(AdvertisingData, scanResponse: AdvertisingData?, connectable: Bool)
    case stopAdvertising
    case isAdvertising
    case respondToRead(ReadRequest, Result<Data, ATTError>)
    case respondToWrite(WriteRequests, Result<Void, ATTError>)
    case updateValue(Data, for: PublishedCharacteristic, centrals: [UUID]?)
    case maximumUpdateValueLength(UUID)
    case securityLevel(UUID)
    case pair(UUID, minimum: SecurityLevel)
    case publishL2CAPChannel(requiresEncryption: Bool)
    case unpublishL2CAPChannel(UInt16)
    case disconnect(UUID)
    case connectedCentrals
}

/// The test's controls of the medium, from a client (they name the client's own managers).
enum BusCall: Equatable {
    case setCentralState(manager: UInt32, ManagerState)
    case setPeripheralState(manager: UInt32, ManagerState)
    case setDistance(manager: UInt32, Double)
    case loseLink(manager: UInt32, peripheral: UUID)
    case removeAllBonds
    case bondCount
    case trace
    case clearTrace
}

/// What a client's L2CAP channel end asks of the hub's.
enum ChannelCall: Equatable {
    case send(Data)
    /// The next SDU of the channel's input (a pull).
    case next
    case close
    /// The client let go of its end, which had crossed `crossings` times (the hub keeps the
    /// channel while a crossing is unaccounted for: an event still on its way holds it).
    case release(crossings: UInt32)
}

/// A client's message to the hub. Those with ``needsReply`` get one ``HubReply`` under the
/// frame's request number; the others are one-way.
enum HubRequest: Equatable {
    case attachCentral(manager: UInt32, restoreIdentifier: String?, mtu: Int?, device: String?, passkeyHandler: Bool)
    case attachPeripheral(manager: UInt32, restoreIdentifier: String?, mtu: Int?, device: String?, distance: Double?)
    case detach(manager: UInt32)
    case central(manager: UInt32, CentralCall)
    case peripheral(manager: UInt32, PeripheralCall)
    case bus(BusCall)
    /// The next element of a pulled stream.
    case next(stream: UInt32)
    /// The client let go of a stream.
    case release(stream: UInt32)
    case channel(UInt32, ChannelCall)
    /// The application handled a pushed event that carried `receipt`.
    case handled(receipt: UInt64)
    /// The answer to a ``HubPush/passkeyRequest(id:manager:_:)``.
    case passkeyEntered(request: UInt64, passkey: UInt32?)
    /// The caller gave up on the request of that number.
    case cancel(request: UInt64)

    var needsReply: Bool {
        switch self {
        case .channel(_, .release): false
        case .central, .peripheral, .bus, .next, .channel: true
        case .attachCentral, .attachPeripheral, .detach, .release, .handled, .passkeyEntered, .cancel: false
        }
    }
}

/// An L2CAP channel the hub opened for a client: the client's number for it, and what it is.
struct HubChannel: Equatable, HubCodable {
    var number: UInt32
    var psm: UInt16
    var peer: UUID

    func encode(to writer: inout HubWriter) { writer.u32(number); writer.u16(psm); writer.uuid(peer) }
    init(number: UInt32, psm: UInt16, peer: UUID) {
        self.number = number
        self.psm = psm
        self.peer = peer
    }
    init(from reader: inout HubReader) throws(PacketDecodingError) {
        self.init(number: try reader.u32(), psm: try reader.u16(), peer: try reader.uuid())
    }
}

/// A peripheral event as it crosses: an opened L2CAP channel travels as the number the hub
/// gave it.
enum HubPeripheralEvent: EqualByBytes {
    case event(PeripheralEvent)
    case channelOpened(HubChannel)
}

/// An element of a stream: pulled (in a reply) or pushed.
enum HubElement: EqualByBytes {
    case data(Data)
    case advertisement(Advertisement)
    case central(CentralEvent)
    case peripheral(HubPeripheralEvent)
}

/// What a request with a reply returns.
enum HubValue: Equatable {
    case none
    case bool(Bool)
    case int(Int)
    case optionalInt(Int?)
    case data(Data)
    case state(ManagerState)
    case security(SecurityLevel?)
    case services([RemoteService])
    case characteristics([RemoteCharacteristic])
    case descriptors([RemoteDescriptor])
    case peripherals([KnownPeripheral])
    case published(PublishedService)
    case psm(UInt16)
    case centrals([UUID])
    case channel(HubChannel)
    /// A pulled stream's next element.
    case element(HubElement)
    /// A pulled stream's normal end (an end with an error is a failure).
    case end
    case trace([LinkTraceEvent])
}

/// The hub's answer to a request.
enum HubReply: Equatable {
    case success(HubValue)
    case failure(BleuError)
}

/// What the hub sends unasked.
enum HubPush: Equatable {
    /// An element of a pushed stream; with a `receipt`, the client answers
    /// ``HubRequest/handled(receipt:)`` once its application has handled it.
    case element(stream: UInt32, HubElement, receipt: UInt64?)
    /// A pushed stream ended: normally (`nil`) or with the error.
    case end(stream: UInt32, BleuError?)
    /// A central of the client pairs by passkey entry: the hub waits for
    /// ``HubRequest/passkeyEntered(request:passkey:)``.
    case passkeyRequest(id: UInt64, manager: UInt32, PasskeyRequest)
}

/// A message equal to another when their bytes are: for those holding values that are not
/// `Equatable` themselves (a `Result` with `Void`, BleuCore's events).
protocol EqualByBytes: HubCodable, Equatable {}

extension EqualByBytes {
    static func == (lhs: Self, rhs: Self) -> Bool {
        var left = HubWriter(), right = HubWriter()
        lhs.encode(to: &left)
        rhs.encode(to: &right)
        return left.bytes == right.bytes
    }
}
