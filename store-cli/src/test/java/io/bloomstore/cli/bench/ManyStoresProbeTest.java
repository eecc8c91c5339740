package io.bloomstore.cli.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The probe's hand-written key encoding writes exactly the bytes {@code String.format("key%010d")} did. */
class ManyStoresProbeTest {
    @Test
    void keysAreTheFormattedOnes() {
        int[] samples = {0, 1, 9, 10, 99, 1_000, 3_999, 123_456_789, Integer.MAX_VALUE};
        for (int k : samples) {
            assertArrayEquals(String.format(Locale.ROOT, "key%010d", k).getBytes(StandardCharsets.US_ASCII),
                    ManyStoresProbe.key(k), "key " + k);
        }
    }
}
