package io.bloomstore.cli.bench;

/** {@link MvStoreEngine} through the benchmark's engine interface: see {@link PeerEngineContract}. */
class MvStoreEngineTest extends PeerEngineContract {
    @Override
    String engineName() {
        return MvStoreEngine.NAME;
    }
}
