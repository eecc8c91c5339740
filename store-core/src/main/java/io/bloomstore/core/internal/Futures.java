package io.bloomstore.core.internal;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * Waiting for background work that must finish before its caller goes on (a sync before its file
 * is closed): an interrupt does not cut the wait short, it is kept for the caller to see.
 *
 * <p>Thread safety: stateless.
 */
public final class Futures {
    private Futures() {
    }

    /** Waits until {@code f} is done; returns what it failed with, or null. */
    public static Throwable await(Future<?> f) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    f.get();
                    return null;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    return e.getCause();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
