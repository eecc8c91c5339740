package io.bloomstore.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in the repository's Markdown (the top-level {@code *.md} files and everything
 * under {@code docs/}) names a file that exists and, when it has a {@code #fragment} into a Markdown
 * file, a heading of that file (GitHub's anchor rules). Links to web addresses are not followed.
 */
class DocsLinksTest {

    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
    private static final Pattern CODE_SPAN = Pattern.compile("`[^`]*`");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

    @Test
    void everyRelativeLinkResolves() throws IOException {
        Path root = repositoryRoot();
        List<Path> pages = markdownPages(root);
        assertTrue(pages.size() >= 8, "expected README.md and the docs pages, found " + pages);
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : pages) {
            for (String target : links(page)) {
                checked++;
                String problem = problem(page, target);
                if (problem != null) {
                    broken.add(root.relativize(page) + ": " + target + " (" + problem + ")");
                }
            }
        }
        assertTrue(checked > 30, "too few links found (" + checked + "): is the link pattern right?");
        assertEquals(List.of(), broken, "broken links");
    }

    @Test
    void anchorsFollowGitHubRules() {
        assertEquals("which-range-filter-grafite-style-or-rosetta-by-measurement",
                anchor("Which range filter: Grafite-style or Rosetta, by measurement"));
        assertEquals("short-runs-in-mvn-verify-long-runs-behind--pstress",
                anchor("Short runs in `mvn verify`, long runs behind `-Pstress`"));
    }

    private static String problem(Path page, String target) {
        if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
            return null; // http:, https:, mailto: — not followed
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String fragment = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        if (!Files.exists(resolved)) {
            return "no such file";
        }
        if (fragment != null && resolved.toString().endsWith(".md") && !anchors(resolved).contains(fragment)) {
            return "no such heading";
        }
        return null;
    }

    /** The link targets of a page, outside fenced code blocks and code spans. */
    private static List<String> links(Path page) {
        List<String> targets = new ArrayList<>();
        boolean fenced = false;
        for (String line : lines(page)) {
            if (line.stripLeading().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            Matcher m = LINK.matcher(CODE_SPAN.matcher(line).replaceAll(""));
            while (m.find()) {
                targets.add(m.group(1));
            }
        }
        return targets;
    }

    private static Set<String> anchors(Path page) {
        Set<String> anchors = new HashSet<>();
        Set<String> seen = new HashSet<>();
        boolean fenced = false;
        for (String line : lines(page)) {
            if (line.stripLeading().startsWith("```")) {
                fenced = !fenced;
            }
            Matcher m = HEADING.matcher(line);
            if (!fenced && m.matches()) {
                String base = anchor(m.group(1));
                String slug = base;
                // GitHub numbers repeated headings: name, name-1, name-2, ...
                for (int i = 1; !seen.add(slug); i++) {
                    slug = base + "-" + i;
                }
                anchors.add(slug);
            }
        }
        return anchors;
    }

    /** GitHub's heading anchor: lower case, punctuation dropped, each space a hyphen. */
    static String anchor(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").toLowerCase(Locale.ROOT);
        StringBuilder slug = new StringBuilder();
        text.codePoints().forEach(c -> {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                slug.appendCodePoint(c);
            } else if (c == ' ') {
                slug.append('-');
            }
        });
        return slug.toString();
    }

    private static List<Path> markdownPages(Path root) throws IOException {
        List<Path> pages = new ArrayList<>();
        try (Stream<Path> top = Files.list(root)) {
            top.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    private static List<String> lines(Path page) {
        try {
            return Files.readAllLines(page);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The test runs in store-cli/; the repository root is the first parent holding README.md and docs/. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no README.md with a docs/ beside it above " + Path.of("").toAbsolutePath());
    }
}
