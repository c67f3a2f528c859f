import BleuWire
import Foundation
import Logging
import CoreMetrics

extension BLEActorSystem {
    /// Limits, timeouts and injected dependencies of an actor system.
    public struct Configuration: Sendable {
        /// How long a remote call waits for its reply before it fails with
        /// `BleuError.timeout`. Override per call with ``BLEActorSystem/withCallTimeout(_:operation:)``.
        public var callTimeout: Duration
        /// How long one connection attempt, or setting up a link, or locating a saved actor id
        /// may take.
        ///
        /// Setting up a link to an actor whose ``ServiceMetadata/security`` needs pairing
        /// includes the pairing, and with passkey entry or numeric comparison the user's answer:
        /// allow for it (the Security Manager itself gives up after 30 s without the peer's next
        /// message), for example 45 s where a person types a passkey.
        public var connectionTimeout: Duration
        /// How the links to held actors are kept: backoff, retention, and what calls do while a
        /// link is down.
        public var links: LinkPolicy
        /// The largest request or reply, in bytes (arguments or result included). Larger ones
        /// fail with ``BLEActorSystemError/messageTooLarge(size:maximum:)``.
        public var maximumMessageSize: Int
        /// Calls one central may have running on one hosted actor at once: the peripheral refuses
        /// more with ``BLEActorSystemError/tooManyConcurrentCalls(limit:)``; a central keeps at
        /// most this many in flight per actor and queues the rest.
        public var maximumConcurrentCallsPerCentral: Int
        /// Calls in flight to one remote actor at once (central side); past that a call fails
        /// with ``BLEActorSystemError/tooManyConcurrentCalls(limit:)``. At most 120 (call ids take
        /// one byte).
        public var maximumPendingCallsPerActor: Int
        /// Distinct methods (with their generic substitutions) interned on one connection.
        public var maximumMethodsPerConnection: Int
        /// Elements a caller buffers per ``BLEStream``: the credits it grants the producer.
        public var streamBufferLimit: Int
        /// Streams one central may have open on one hosted actor.
        public var maximumStreamsPerCentral: Int
        /// ``BLEActorSystem/discover(_:timeout:count:)-(_,Duration,_)`` returns once it found at least one actor
        /// and nothing new turned up for this long (default 1 s), instead of scanning for the
        /// whole timeout; `nil` scans for the whole timeout (or until `count` actors were found).
        public var discoveryQuietPeriod: Duration?
        /// A local name to put in the scan response when there is room.
        public var localName: String?
        /// The framing of requests and replies; both ends must agree.
        public var wireFormat: WireFormat
        /// The clock of every timeout (inject a manual clock in tests).
        public var clock: any Clock<Duration>
        /// Where the system logs refused requests, dropped fragments and connection trouble.
        public var logger: Logger
        /// Where the system's metrics go (reconnections and failed calls per actor, the link
        /// engine's own); `nil` uses the process's `MetricsSystem`.
        public var metrics: (any MetricsFactory)?
        /// The types this system rebuilds from names a peer sends (default: none beyond the
        /// built-in set): the `Codable` errors of remote methods it receives as themselves, and
        /// the generic arguments its hosted actors' generic methods may be called with. A remote
        /// error of another type arrives as ``RemoteCallError`` (unless the method declares it
        /// with typed throws), and a generic call with another type argument is refused. See
        /// ``RemoteTypeRegistry``.
        public var remoteTypes: RemoteTypeRegistry

        /// A configuration; each parameter sets the property of the same name.
        public init(callTimeout: Duration = .seconds(10), connectionTimeout: Duration = .seconds(10), links: LinkPolicy = LinkPolicy(),
                    maximumMessageSize: Int = 128 * 1024, maximumConcurrentCallsPerCentral: Int = 16,
                    maximumPendingCallsPerActor: Int = 64, maximumMethodsPerConnection: Int = 256,
                    streamBufferLimit: Int = 16, maximumStreamsPerCentral: Int = 8,
                    discoveryQuietPeriod: Duration? = .seconds(1), localName: String? = nil, wireFormat: WireFormat = .compact,
                    clock: any Clock<Duration> = ContinuousClock(), logger: Logger = Logger(label: "bleu.actor-system"),
                    metrics: (any MetricsFactory)? = nil, remoteTypes: RemoteTypeRegistry = RemoteTypeRegistry()) {
            self.callTimeout = callTimeout
            self.connectionTimeout = connectionTimeout
            self.links = links
            self.maximumMessageSize = max(64, maximumMessageSize)
            self.maximumConcurrentCallsPerCentral = max(1, maximumConcurrentCallsPerCentral)
            self.maximumPendingCallsPerActor = min(120, max(1, maximumPendingCallsPerActor))
            self.maximumMethodsPerConnection = max(1, maximumMethodsPerConnection)
            self.streamBufferLimit = max(1, streamBufferLimit)
            self.maximumStreamsPerCentral = max(1, maximumStreamsPerCentral)
            self.discoveryQuietPeriod = discoveryQuietPeriod
            self.localName = localName
            self.wireFormat = wireFormat
            self.clock = clock
            self.logger = logger
            self.metrics = metrics
            self.remoteTypes = remoteTypes
        }

        var encoder: CBOREncoder { CBOREncoder(keyEncoding: .integersWhenAvailable) }
        var decoder: CBORDecoder { CBORDecoder() }
    }
}
