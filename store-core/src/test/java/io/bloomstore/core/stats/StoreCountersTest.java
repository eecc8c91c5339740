package io.bloomstore.core.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The counters' surface is small and honest: no public fields (nothing outside can replace or
 * reset a counter), every counter only counts up, and nothing is offered that the engine never
 * counts (the old {@code bytesWritten}).
 */
class StoreCountersTest {
    @Test
    void noPublicFields() {
        for (Class<?> c : new Class<?>[] {StoreCounters.class, LevelCounters.class, Counter.class}) {
            for (Field f : c.getDeclaredFields()) {
                assertTrue(!Modifier.isPublic(f.getModifiers()) || Modifier.isStatic(f.getModifiers())
                        && Modifier.isFinal(f.getModifiers()), c.getSimpleName() + "." + f.getName() + " is public");
            }
        }
    }

    @Test
    void neverCountedBytesWrittenIsGone() {
        assertTrue(Arrays.stream(StoreCounters.class.getMethods()).map(Method::getName)
                .noneMatch("bytesWritten"::equals));
        assertTrue(Arrays.stream(StoreCounters.class.getDeclaredFields()).map(Field::getName)
                .noneMatch("bytesWritten"::equals));
    }

    @Test
    void countersOnlyCountUp() {
        StoreCounters c = new StoreCounters(2);
        c.gets().increment();
        c.bytesRead().add(4096);
        c.level(1).probes().add(3);
        c.level(1).hits().increment();
        assertEquals(1, c.gets().sum());
        assertEquals(4096, c.bytesRead().sum());
        assertEquals(1.0 / 3, c.level(1).hitRatio(), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> c.bytesRead().add(-1));
    }
}
