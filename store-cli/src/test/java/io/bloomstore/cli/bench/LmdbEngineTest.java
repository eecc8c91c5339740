package io.bloomstore.cli.bench;

/** {@link LmdbEngine} through the benchmark's engine interface: see {@link PeerEngineContract}. */
class LmdbEngineTest extends PeerEngineContract {
    @Override
    String engineName() {
        return LmdbEngine.NAME;
    }
}
