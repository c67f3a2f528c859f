/// Every suite `bleu-bench` can run. Add yours here.
enum BenchmarkRegistry {
    static let suites: [any BenchmarkSuite] = [
        LinkBenchmark(),
        WireBenchmark(), CodecBenchmark(),
        GATTBenchmark(),
        RPCBenchmark(), CallsBenchmark(), EchoesBenchmark(),
        FleetBenchmark(),
        ActorsBenchmark(),
        HCIBenchmark(),
        HubBenchmark(), HubPeer(),
        MemoryBenchmark(), MemoryPeer(),
    ]
}
