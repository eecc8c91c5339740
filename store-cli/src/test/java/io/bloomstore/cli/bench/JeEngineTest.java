package io.bloomstore.cli.bench;

/** {@link JeEngine} through the benchmark's engine interface: see {@link PeerEngineContract}. */
class JeEngineTest extends PeerEngineContract {
    @Override
    String engineName() {
        return JeEngine.NAME;
    }
}
