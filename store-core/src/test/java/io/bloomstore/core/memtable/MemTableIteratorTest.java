package io.bloomstore.core.memtable;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The memtable iterator's forward walk (an entry iterator) and its navigation (seeks, backward
 * steps) agree: the same entries in internal order whichever way the iterator got there, also
 * after switching direction, and entries added during a walk are seen or not but never break it.
 */
class MemTableIteratorTest {

    private static byte[] k(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Keys a..e, b with two versions (sequences 7 then 2, newest first). */
    private static MemTable sample() {
        MemTable m = new MemTable(1);
        m.add(k("c"), 3, ValueType.VALUE, k("c3"));
        m.add(k("a"), 1, ValueType.VALUE, k("a1"));
        m.add(k("b"), 2, ValueType.VALUE, k("b2"));
        m.add(k("e"), 5, ValueType.DELETION, new byte[0]);
        m.add(k("d"), 4, ValueType.VALUE, k("d4"));
        m.add(k("b"), 7, ValueType.VALUE, k("b7"));
        return m;
    }

    private static String at(InternalIterator it) {
        return new String(it.key(), StandardCharsets.UTF_8) + it.sequence();
    }

    @Test
    void forwardWalkIsInInternalOrder() throws Exception {
        try (InternalIterator it = sample().iterator()) {
            List<String> seen = new ArrayList<>();
            for (it.seekToFirst(); it.valid(); it.next()) {
                seen.add(at(it));
            }
            assertEquals(List.of("a1", "b7", "b2", "c3", "d4", "e5"), seen);
        }
    }

    @Test
    void seekThenForwardAndBackwardSwitches() throws Exception {
        try (InternalIterator it = sample().iterator()) {
            it.seek(k("b"));
            assertEquals("b7", at(it));
            assertArrayEquals(k("b7"), it.value());
            it.next();
            assertEquals("b2", at(it));
            it.prev();
            assertEquals("b7", at(it));
            it.next();
            assertEquals("b2", at(it));
            it.next();
            assertEquals("c3", at(it));
            it.prev();
            it.prev();
            assertEquals("b7", at(it));
            it.next();
            it.next();
            it.next();
            assertEquals("d4", at(it));
            it.seek(k("bb"));
            assertEquals("c3", at(it));
            it.seek(k("f"));
            assertFalse(it.valid());
            it.seekToLast();
            assertEquals("e5", at(it));
            assertEquals(ValueType.DELETION, it.type());
            it.next();
            assertFalse(it.valid());
            it.seekForPrev(k("cc"));
            assertEquals("c3", at(it));
            it.next();
            assertEquals("d4", at(it));
        }
    }

    @Test
    void entriesAddedDuringAWalkDoNotBreakIt() throws Exception {
        MemTable m = sample();
        try (InternalIterator it = m.iterator()) {
            it.seekToFirst();
            m.add(k("bb"), 8, ValueType.VALUE, k("bb8"));
            m.add(k("0"), 9, ValueType.VALUE, k("09"));
            List<String> seen = new ArrayList<>();
            for (; it.valid(); it.next()) {
                seen.add(at(it));
            }
            assertTrue(seen.containsAll(List.of("a1", "b7", "b2", "c3", "d4", "e5")), seen.toString());
            assertFalse(seen.contains("09"), "an entry before the iterator's position is not seen");
            assertTrue(List.of("a1", "b7", "b2", "bb8", "c3", "d4", "e5").containsAll(seen), seen.toString());
        }
    }
}
