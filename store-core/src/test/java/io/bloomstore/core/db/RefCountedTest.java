package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The reference count behind table handles and version references. */
class RefCountedTest {

    private static final class Counted extends RefCounted {
        int closed;

        @Override
        void lastReleased() {
            closed++;
        }

        @Override
        String describe() {
            return "thing 7";
        }
    }

    @Test
    void theLastReleaseClosesOnceAndThenRetainFails() {
        Counted c = new Counted();
        assertTrue(c.retain());
        c.release();
        assertEquals(0, c.closed, "one reference left");
        c.release();
        assertEquals(1, c.closed);
        assertFalse(c.retain(), "a released object cannot be revived");
        IllegalStateException e = assertThrows(IllegalStateException.class, c::release);
        assertEquals("thing 7 released more often than retained", e.getMessage());
        assertEquals(1, c.closed);
    }
}
