package io.bloomstore.cli.filter;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import io.bloomstore.bloom.FilterFile;
import io.bloomstore.bloom.FilterHeader;
import io.bloomstore.bloom.FilterSet;
import io.bloomstore.bloom.MembershipFilter;
import io.bloomstore.bloom.RangeFilter;
import io.bloomstore.bloom.RosettaFilter;
import io.bloomstore.cli.ExitCodes;
import io.bloomstore.cli.Json;
import io.bloomstore.cli.Units;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code bloomstore filter info}: a filter file's header (docs/format/filter.md), size,
 * bits per key and expected false-positive rate (for range filters: of a point query, and the
 * longest range they answer), after checking every checksum. For a filter set (a table sidecar
 * with a prefix or range filter, format version 2): every member's checksums, then each member's
 * role, descriptor, bytes (the memory it takes mapped) and the same facts.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "info", mixinStandardHelpOptions = true,
        description = "Print a filter file's header, size and expected false-positive rate (checks its checksums).")
public final class FilterInfoCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "F", description = "Filter file.")
    private Path file;

    @Option(names = "--json", description = "Print one JSON object.")
    private boolean json;

    @Override
    public Integer call() throws IOException {
        if (isSet()) {
            return callSet();
        }
        FilterHeader h = FilterFile.verify(file);
        double expectedFpr;
        Long maxRange;
        try (MembershipFilter filter = FilterFile.open(file, false)) {
            expectedFpr = filter.expectedFpp();
            maxRange = maxRange(filter);
        }
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("file", file.toString());
        info.put("fileBytes", Files.size(file));
        info.put("formatVersion", FilterFile.FORMAT_VERSION);
        info.put("kind", h.kind().cliName());
        info.put("hashStrategy", h.hashStrategy().name());
        info.put("seed", h.seed());
        info.put("k", h.k());
        info.put("aux", h.aux());
        info.put("m", h.m());
        info.put("n", h.n());
        info.put("payloadBytes", h.payloadLength());
        info.put("aux2", h.aux2());
        info.put("bitsPerKey", h.n() == 0 ? null : (double) h.payloadLength() * 8 / h.n());
        info.put("expectedFpr", expectedFpr);
        info.put("maxRange", maxRange);
        info.put("checksums", "ok");
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(Json.write(info));
        } else {
            out.printf(Locale.ROOT, "%s: %s filter, format version %d, %s%n", file, h.kind().cliName(),
                    FilterFile.FORMAT_VERSION, Units.bytes(Files.size(file)));
            out.printf(Locale.ROOT, "  hash           %s, seed %d%n", h.hashStrategy(), h.seed());
            out.printf(Locale.ROOT, "  k              %d%n", h.k());
            out.printf(Locale.ROOT, "  m              %s%n", Units.count(h.m()));
            out.printf(Locale.ROOT, "  n (keys)       %s%n", Units.count(h.n()));
            if (h.aux() != 0 || h.aux2() != 0) {
                out.printf(Locale.ROOT, "  aux, aux2      %d, %d%n", h.aux(), h.aux2());
            }
            out.printf(Locale.ROOT, "  payload        %s bytes%n", Units.count(h.payloadLength()));
            if (h.n() > 0) {
                out.printf(Locale.ROOT, "  bits per key   %.3f%n", (double) h.payloadLength() * 8 / h.n());
            }
            out.printf(Locale.ROOT, "  expected FPR   %s (%.3g)%s%n", Units.percent(expectedFpr), expectedFpr,
                    maxRange == null ? "" : " for a point; ranges answered up to " + Units.count(maxRange) + " values");
            out.printf(Locale.ROOT, "  checksums      ok%n");
        }
        out.flush();
        return ExitCodes.OK;
    }

    /** The longest range a range filter answers, or null for a membership filter. */
    private static Long maxRange(MembershipFilter f) {
        if (f instanceof RangeFilter r) {
            return r.maxRange();
        }
        if (f instanceof RosettaFilter r) {
            return r.maxRange();
        }
        return null;
    }

    /** Whether the file is a filter set; opening checks its header (and reports damage). */
    private boolean isSet() throws IOException {
        try (FilterSet set = FilterSet.open(file, false)) {
            return set.version() == FilterSet.FORMAT_VERSION;
        }
    }

    private Integer callSet() throws IOException {
        FilterSet.verify(file);
        List<Map<String, Object>> sections = new ArrayList<>();
        try (FilterSet set = FilterSet.open(file, false)) {
            for (FilterSet.Section sec : set.sections()) {
                FilterHeader h = sec.filter().header();
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("role", sec.role().name().toLowerCase(Locale.ROOT));
                m.put("descriptor", new String(sec.descriptor(), StandardCharsets.US_ASCII));
                m.put("offset", sec.offset());
                m.put("bytes", sec.length());
                m.put("kind", h.kind().cliName());
                m.put("k", h.k());
                m.put("m", h.m());
                m.put("n", h.n());
                m.put("bitsPerKey", h.n() == 0 ? null : (double) h.payloadLength() * 8 / h.n());
                m.put("expectedFpr", sec.filter().expectedFpp());
                m.put("maxRange", maxRange(sec.filter()));
                sections.add(m);
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            Map<String, Object> info = new LinkedHashMap<>();
            info.put("file", file.toString());
            info.put("fileBytes", Files.size(file));
            info.put("formatVersion", FilterSet.FORMAT_VERSION);
            info.put("sections", sections);
            info.put("checksums", "ok");
            out.println(Json.write(info));
        } else {
            out.printf(Locale.ROOT, "%s: filter set of %d filters, format version %d, %s%n", file, sections.size(),
                    FilterSet.FORMAT_VERSION, Units.bytes(Files.size(file)));
            for (Map<String, Object> m : sections) {
                String desc = (String) m.get("descriptor");
                out.printf(Locale.ROOT, "  %-7s %s filter%s at %d: %s, k %d, n %s, %s bits/key, expected FPR %s%n",
                        m.get("role"), m.get("kind"), desc.isEmpty() ? "" : " (" + desc + ")", (Long) m.get("offset"),
                        Units.bytes((Long) m.get("bytes")), (Integer) m.get("k"), Units.count((Long) m.get("n")),
                        m.get("bitsPerKey") == null ? "-" : String.format(Locale.ROOT, "%.3f", m.get("bitsPerKey")),
                        Units.percent((Double) m.get("expectedFpr")) + (m.get("maxRange") == null ? ""
                                : " (a point; ranges of up to " + Units.count((Long) m.get("maxRange")) + " values)"));
            }
            out.printf(Locale.ROOT, "  checksums ok%n");
        }
        out.flush();
        return ExitCodes.OK;
    }
}
