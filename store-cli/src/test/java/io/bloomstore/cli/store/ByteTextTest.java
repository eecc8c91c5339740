package io.bloomstore.cli.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** The text form of keys and values: escapes, hex, and the round trip for any bytes. */
class ByteTextTest {

    @Test
    void escapes() {
        assertArrayEquals(new byte[] {'a', '\t', 'b', '\n', '\r', '\\', 0, (byte) 0xFF},
                ByteText.ESCAPED.decode("a\\tb\\n\\r\\\\\\x00\\xFF"));
        assertEquals("a\\tb\\n\\r\\\\\\x00\\xff\\x7f", ByteText.ESCAPED.encode(
                new byte[] {'a', '\t', 'b', '\n', '\r', '\\', 0, (byte) 0xFF, 0x7F}));
        assertEquals("héllo ✓ 😀", ByteText.ESCAPED.encode("héllo ✓ 😀".getBytes(StandardCharsets.UTF_8)));
        // Overlong '/' and a UTF-16 surrogate encoded in UTF-8 are not valid UTF-8: escaped byte by byte.
        assertEquals("\\xc0\\xaf", ByteText.ESCAPED.encode(new byte[] {(byte) 0xC0, (byte) 0xAF}));
        assertEquals("\\xed\\xa0\\x80", ByteText.ESCAPED.encode(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}));
    }

    @Test
    void badEscapesSayWhere() {
        assertEquals("unknown escape '\\q' at column 2 of 'a\\q' (known: \\\\ \\t \\n \\r \\xNN)",
                assertThrows(IllegalArgumentException.class, () -> ByteText.ESCAPED.decode("a\\q")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> ByteText.ESCAPED.decode("a\\"));
        assertThrows(IllegalArgumentException.class, () -> ByteText.ESCAPED.decode("\\x4"));
        assertThrows(IllegalArgumentException.class, () -> ByteText.ESCAPED.decode("\\xg0"));
        assertThrows(IllegalArgumentException.class, () -> ByteText.HEX.decode("abc"));
        assertThrows(IllegalArgumentException.class, () -> ByteText.HEX.decode("zz"));
    }

    @Test
    void anyBytesRoundTripAndNeverPrintALineBreakOrTab() {
        long seed = System.nanoTime();
        System.out.println("ByteTextTest seed " + seed);
        Random random = new Random(seed);
        for (int i = 0; i < 5000; i++) {
            byte[] b = new byte[random.nextInt(24)];
            random.nextBytes(b);
            for (ByteText t : ByteText.values()) {
                String text = t.encode(b);
                assertArrayEquals(b, t.decode(text), t + " seed " + seed);
                assertFalse(text.contains("\n") || text.contains("\r") || text.contains("\t"), text);
            }
        }
    }
}
