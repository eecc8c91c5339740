package io.bloomstore.core.internal;

import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * Waiting for background work that must finish before its caller goes on (a sync before its file
 * is closed): an interrupt does not cut the wait short, it is kept for the caller to see.
 *
 * <p>Thread safety: stateless.
 */
public final class Futures {
    /**
     * A future that has already completed, with no result: no {@code CompletableFuture}, whose
     * class and common pool a store's first open in a process would load.
     */
    public static final Future<?> DONE = new Done();

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

    /**
     * Throws {@code failure} as it is when it is an {@link IOException}, a {@link RuntimeException}
     * or an {@link Error}, any other throwable wrapped in an {@code IOException} with
     * {@code message}; returns when {@code failure} is null.
     */
    public static void rethrow(Throwable failure, String message) throws IOException {
        if (failure instanceof IOException e) {
            throw e;
        } else if (failure instanceof RuntimeException e) {
            throw e;
        } else if (failure instanceof Error e) {
            throw e;
        } else if (failure != null) {
            throw new IOException(message, failure);
        }
    }

    /** {@link #DONE}'s class. */
    private static final class Done implements Future<Object> {
        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return false;
        }

        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public boolean isDone() {
            return true;
        }

        @Override
        public Object get() {
            return null;
        }

        @Override
        public Object get(long timeout, java.util.concurrent.TimeUnit unit) {
            return null;
        }
    }
}
