package io.bloomstore.cli.streams;

import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The input of a streams benchmark run, generated before any engine runs so every engine gets
 * the same events in the same order.
 * <ul>
 *   <li>dedup: {@code events} ids; each is new with probability {@code uniqueFraction}, else a
 *       uniformly chosen earlier id. Ids are 16 hex digits of a mixed counter, so they arrive in
 *       random key order.
 *   <li>wordcount: {@code events} words in lines of 8, drawn from a vocabulary of
 *       {@code vocabulary} words with a Zipf-like skew (rank ~ 1/u).
 * </ul>
 *
 * <p>Thread safety: immutable after construction.
 */
final class StreamsEvents {
    static final int WORDS_PER_LINE = 8;
    private final String[] keys;
    private final int unique;

    private StreamsEvents(String[] keys, int unique) {
        this.keys = keys;
        this.unique = unique;
    }

    static StreamsEvents dedup(int events, double uniqueFraction, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        String[] ids = new String[events];
        int unique = 0;
        for (int i = 0; i < events; i++) {
            if (unique == 0 || rnd.nextDouble() < uniqueFraction) {
                ids[i] = idOf(unique++);
            } else {
                ids[i] = idOf(rnd.nextInt(unique));
            }
        }
        return new StreamsEvents(ids, unique);
    }

    static StreamsEvents wordCount(int words, int vocabulary, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int lines = Math.max(1, words / WORDS_PER_LINE);
        String[] out = new String[lines];
        StringBuilder sb = new StringBuilder();
        for (int l = 0; l < lines; l++) {
            sb.setLength(0);
            for (int w = 0; w < WORDS_PER_LINE; w++) {
                int rank = (int) Math.max(0, Math.min(vocabulary - 1, Math.floor(1.0 / (rnd.nextDouble() + 1.0 / vocabulary)) - 1));
                sb.append(w == 0 ? "" : " ").append("w").append(rank);
            }
            out[l] = sb.toString();
        }
        return new StreamsEvents(out, -1);
    }

    /** The id of the {@code n}th distinct key: 16 hex digits of a mixed counter. */
    static String idOf(long n) {
        long z = n * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return String.format(Locale.ROOT, "%016x", z ^ (z >>> 31));
    }

    /** Dedup: the ids; wordcount: the lines. */
    String[] records() {
        return keys;
    }

    /** Dedup: distinct ids, which is the number of events the topology must emit. */
    int unique() {
        return unique;
    }
}
