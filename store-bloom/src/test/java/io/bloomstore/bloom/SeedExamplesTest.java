package io.bloomstore.bloom;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongUnaryOperator;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

/**
 * The seeds' worked examples and formula values, run as written from
 * testdata/seeds/bloom-examples.txt (the command language is described at its top).
 */
class SeedExamplesTest {
    private BloomFilter filter;

    @Test
    void seedExamples() throws Exception {
        DataDrivenFile.testdata("seeds/bloom-examples.txt").run(this::execute);
    }

    private String execute(String line) {
        String[] words = line.trim().split("\\s+");
        String[] args = Arrays.copyOfRange(words, 1, words.length);
        switch (words[0]) {
            case "filter":
                return newFilter(args);
            case "add":
                for (String x : args) {
                    filter.addHash(Long.parseLong(x));
                }
                return "ok";
            case "bits": {
                StringBuilder sb = new StringBuilder();
                for (long i = 0; i < filter.m(); i++) {
                    sb.append(i == 0 ? "" : " ").append(filter.bit(i) ? 1 : 0);
                }
                return sb.toString();
            }
            case "query":
                return Arrays.stream(args)
                        .map(x -> x + (filter.mightContainHash(Long.parseLong(x)) ? " present" : " absent"))
                        .collect(Collectors.joining("\n"));
            case "math":
                return math(args[0], named(Arrays.copyOfRange(args, 1, args.length)));
            default:
                throw new IllegalArgumentException("unknown command: " + line);
        }
    }

    private String newFilter(String[] args) {
        long m = 0;
        List<LongUnaryOperator> functions = new ArrayList<>();
        for (String a : args) {
            if (a.startsWith("m=")) {
                m = Long.parseLong(a.substring(2));
            } else if (a.startsWith("h=")) {
                functions.add(polynomial(a.substring(2)));
            } else {
                throw new IllegalArgumentException("unknown filter argument " + a);
            }
        }
        filter = BloomFilter.withHashFunctions(m, functions.toArray(new LongUnaryOperator[0]));
        return "k=" + filter.k();
    }

    /** Parses sums of terms c·x^2, c·x and c, written like "x^2+2" or "3x+1". */
    private static LongUnaryOperator polynomial(String expr) {
        long a = 0;
        long b = 0;
        long c = 0;
        for (String term : expr.split("\\+")) {
            if (term.endsWith("x^2")) {
                a += coefficient(term.substring(0, term.length() - 3));
            } else if (term.endsWith("x")) {
                b += coefficient(term.substring(0, term.length() - 1));
            } else {
                c += Long.parseLong(term);
            }
        }
        long fa = a;
        long fb = b;
        long fc = c;
        return x -> fa * x * x + fb * x + fc;
    }

    private static long coefficient(String s) {
        return s.isEmpty() ? 1 : Long.parseLong(s);
    }

    private static Map<String, String> named(String[] args) {
        Map<String, String> map = new HashMap<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            map.put(a.substring(0, eq), a.substring(eq + 1));
        }
        return map;
    }

    private static String math(String function, Map<String, String> a) {
        switch (function) {
            case "optimalK":
                return Integer.toString(BloomMath.optimalK(l(a, "m"), l(a, "n")));
            case "bitsFor":
                return Long.toString(BloomMath.bitsFor(l(a, "n"), d(a, "p")));
            case "fpr":
                return g(BloomMath.fpr(l(a, "m"), l(a, "n"), (int) l(a, "k")));
            case "oneBitFpr":
                return g(BloomMath.oneBitFpr(l(a, "m"), l(a, "n")));
            case "bitsPerKeyFor":
                return g(BloomMath.bitsPerKeyFor(d(a, "p")));
            case "optimalFprBase":
                return g(BloomMath.OPTIMAL_FPR_BASE);
            case "fprAtOptimalK":
                return g(BloomMath.fprAtOptimalK(d(a, "bitsPerKey")));
            default:
                throw new IllegalArgumentException("unknown math function " + function);
        }
    }

    private static long l(Map<String, String> a, String name) {
        return Long.parseLong(a.get(name));
    }

    private static double d(Map<String, String> a, String name) {
        return Double.parseDouble(a.get(name));
    }

    private static String g(double v) {
        return String.format(Locale.ROOT, "%.4g", v);
    }
}
