package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** What a prefix extractor cuts, and when a scan's bounds confine it to one prefix. */
class PrefixExtractorTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void fixedCutsTheFirstBytesAndShorterKeysHaveNoPrefix() {
        PrefixExtractor e = PrefixExtractor.fixed(3);
        assertEquals(3, e.prefixLength(b("abcdef")));
        assertEquals(3, e.prefixLength(b("abc")));
        assertEquals(-1, e.prefixLength(b("ab")));
        assertEquals(3, e.determinedPrefixLength(b("abcd")));
        assertEquals(-1, e.determinedPrefixLength(b("ab")));
        assertThrows(IllegalArgumentException.class, () -> PrefixExtractor.fixed(0));
        assertThrows(IllegalArgumentException.class, () -> PrefixExtractor.fixed(256));
    }

    @Test
    void upToKeepsTheDelimiterAndAKeyWithoutItIsItsOwnPrefix() {
        PrefixExtractor e = PrefixExtractor.upTo((byte) '/');
        assertEquals(6, e.prefixLength(b("user1/x/y")));
        assertEquals(5, e.prefixLength(b("user1")));
        assertEquals(1, e.prefixLength(b("/")));
        assertEquals(6, e.determinedPrefixLength(b("user1/")));
        assertEquals(6, e.determinedPrefixLength(b("user1/abc")));
        // Keys starting with "user1" include "user1/..." and "user10/...": no one prefix.
        assertEquals(-1, e.determinedPrefixLength(b("user1")));
    }

    @Test
    void sharedPrefixOnlyWhenTheRangeStaysInsideOnePrefix() {
        PrefixExtractor e = PrefixExtractor.fixed(3);
        assertArrayEquals(b("abc"), e.sharedPrefix(b("abc"), b("abd")));
        assertArrayEquals(b("abc"), e.sharedPrefix(b("abcx"), b("abcz")));
        assertArrayEquals(b("abc"), e.sharedPrefix(b("abcx"), b("abd")));
        assertNull(e.sharedPrefix(b("abcx"), b("abd\0")), "abd\\0 > successor abd: the range reaches prefix abd");
        assertNull(e.sharedPrefix(b("abcx"), null));
        assertNull(e.sharedPrefix(null, b("abd")));
        assertNull(e.sharedPrefix(b("ab"), b("ac")));
        byte[] top = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 7};
        assertArrayEquals(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF}, e.sharedPrefix(top, null),
                "every key from an all-0xFF prefix on has that prefix");
        PrefixExtractor d = PrefixExtractor.upTo((byte) '/');
        assertArrayEquals(b("u1/"), d.sharedPrefix(b("u1/a"), b("u1/b")));
        assertNull(d.sharedPrefix(b("u1"), b("u1/b")));
    }

    @Test
    void successorIsTheFirstKeyPastThePrefix() {
        assertArrayEquals(b("abd"), PrefixExtractor.successor(b("abc")));
        assertArrayEquals(new byte[] {'a', 'c'}, PrefixExtractor.successor(new byte[] {'a', 'b', (byte) 0xFF}));
        assertNull(PrefixExtractor.successor(new byte[] {(byte) 0xFF, (byte) 0xFF}));
        assertNull(PrefixExtractor.successor(new byte[0]));
    }

    @Test
    void descriptorsRoundTripAndAreWrittenToDisk() {
        assertEquals("fixed:12", new String(PrefixExtractor.fixed(12).descriptor(), StandardCharsets.US_ASCII));
        assertEquals("upto:2f", new String(PrefixExtractor.upTo((byte) '/').descriptor(), StandardCharsets.US_ASCII));
        for (PrefixExtractor e : new PrefixExtractor[] {PrefixExtractor.fixed(1), PrefixExtractor.fixed(255),
                PrefixExtractor.upTo((byte) 0), PrefixExtractor.upTo((byte) 0xFF)}) {
            assertEquals(e, PrefixExtractor.fromDescriptor(e.descriptor()));
        }
        assertNull(PrefixExtractor.fromDescriptor(b("capped:3")));
        assertNull(PrefixExtractor.fromDescriptor(b("fixed:0")));
        assertNull(PrefixExtractor.fromDescriptor(b("upto:zz")));
        assertNotEquals(PrefixExtractor.fixed(3), PrefixExtractor.fixed(4));
    }
}
