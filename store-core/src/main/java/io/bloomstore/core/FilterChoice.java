package io.bloomstore.core;

import java.math.BigDecimal;
import java.math.RoundingMode;

import io.bloomstore.bloom.BlockedBloomFilter;
import io.bloomstore.bloom.BloomMath;
import io.bloomstore.bloom.FilterKind;
import io.bloomstore.bloom.Filters;
import io.bloomstore.core.table.TableOptions;

/**
 * What a {@link FilterPolicy} decided for the tables written at one level: the filter kind and
 * bits per key, or no filter. A skipped filter keeps the kind and bits the policy would otherwise
 * have used, so the memory it saves can be stated.
 *
 * <p>Thread safety: immutable.
 *
 * @param kind       the filter kind, or null when the policy never gives this level a filter
 * @param bitsPerKey bits per distinct key of that filter (0 with a null kind)
 * @param skipped    true when the policy chose no filter for this level although it has a kind
 * @param reason     why, in a few words (shown by {@code stats})
 */
public record FilterChoice(FilterKind kind, double bitsPerKey, boolean skipped, String reason) {

    public FilterChoice {
        if (kind != null) {
            if (!TableOptions.TABLE_FILTER_KINDS.contains(kind)) {
                throw new IllegalArgumentException("filter kind " + kind.cliName()
                        + " cannot be built for a table; use one of " + TableOptions.TABLE_FILTER_KINDS);
            }
            if (!(bitsPerKey > 0 && bitsPerKey <= TableOptions.MAX_BITS_PER_KEY)) {
                throw new IllegalArgumentException("bits per key must be in (0, " + TableOptions.MAX_BITS_PER_KEY
                        + "]: " + bitsPerKey);
            }
        } else if (!skipped) {
            bitsPerKey = 0;
        }
        if (reason == null) {
            throw new IllegalArgumentException("reason must not be null");
        }
    }

    /** A filter of {@code kind} at {@code bitsPerKey}. */
    public static FilterChoice filter(FilterKind kind, double bitsPerKey, String reason) {
        if (kind == null) {
            throw new IllegalArgumentException("filter kind must not be null (use FilterChoice.none)");
        }
        return new FilterChoice(kind, bitsPerKey, false, reason);
    }

    /** No filter at all. */
    public static FilterChoice none(String reason) {
        return new FilterChoice(null, 0, false, reason);
    }

    /** This choice, but skipped: no filter is built, for the given reason. */
    public FilterChoice skip(String why) {
        return kind == null ? this : new FilterChoice(kind, bitsPerKey, true, why);
    }

    /** Whether tables at the level get a filter. */
    public boolean builds() {
        return kind != null && !skipped;
    }

    /**
     * The false-positive rate the filter promises in theory (the kind's formula at these bits per
     * key), ignoring {@link #skipped}; 1 without a kind.
     */
    public double theoreticalFpr() {
        if (kind == null) {
            return 1.0;
        }
        return switch (kind) {
            case BLOCKED_BLOOM -> BloomMath.blockedFpr((long) Math.ceil(bitsPerKey * 1_000_000), 1_000_000,
                    BlockedBloomFilter.optimalK(bitsPerKey), BlockedBloomFilter.BLOCK_BITS);
            case BINARY_FUSE -> Filters.fuseFpr(bitsPerKey);
            case RIBBON -> Filters.ribbonFpr(bitsPerKey);
            default -> BloomMath.fprAtOptimalK(bitsPerKey);
        };
    }

    /** The rate lookups at the level see: {@link #theoreticalFpr()} when built, else 1. */
    public double effectiveFpr() {
        return builds() ? theoreticalFpr() : 1.0;
    }

    @Override
    public String toString() {
        if (kind == null) {
            return "none (" + reason + ")";
        }
        // Not String.format: its formatter compiles a regular expression on first use (a one-shot
        // `bloomstore stats` prints this), and its decimal point would follow the default locale.
        String bits = Double.isFinite(bitsPerKey)
                ? BigDecimal.valueOf(bitsPerKey).setScale(2, RoundingMode.HALF_UP).toPlainString()
                : Double.toString(bitsPerKey);
        return kind.cliName() + " " + bits + " bits/key" + (skipped ? " skipped" : "") + " (" + reason + ")";
    }
}
