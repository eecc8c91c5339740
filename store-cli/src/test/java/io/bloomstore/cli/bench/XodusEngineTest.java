package io.bloomstore.cli.bench;

/** {@link XodusEngine} through the benchmark's engine interface: see {@link PeerEngineContract}. */
class XodusEngineTest extends PeerEngineContract {
    @Override
    String engineName() {
        return XodusEngine.NAME;
    }
}
