package io.bloomstore.cli.bench;

import me.tongfei.progressbar.ProgressBarConsumer;

/**
 * A progress-bar consumer that shows nothing, for runs without a terminal (tests, {@code --no-progress}).
 *
 * <p>Thread safety: stateless.
 */
final class SilentConsumer implements ProgressBarConsumer {
    @Override
    public int getMaxRenderedLength() {
        return 80;
    }

    @Override
    public void accept(String rendered) {
    }

    @Override
    public void close() {
    }
}
