package io.bloomstore.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

import picocli.CommandLine.IVersionProvider;

/**
 * What {@code bloomstore --version} prints: the project version and the git commit the jar was
 * built from, both written into {@code version.properties} by the build. A jar built outside a
 * git checkout (a source archive) says its commit is unknown; one built from a checkout with
 * uncommitted changes says so.
 *
 * <p>Thread safety: stateless.
 */
public final class VersionProvider implements IVersionProvider {
    static final String RESOURCE = "version.properties";

    @Override
    public String[] getVersion() {
        Properties p = new Properties();
        try (InputStream in = VersionProvider.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the jar: a broken build");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String commit = resolved(p.getProperty("commit"));
        String built = commit == null ? "commit unknown"
                : commit.endsWith("+") ? "commit " + commit.substring(0, commit.length() - 1) + " with local changes"
                : "commit " + commit;
        return new String[] {"BloomStore " + p.getProperty("version") + " (" + built + ")",
            "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"};
    }

    /** A filtered value, or null where the build had none to put in. */
    private static String resolved(String value) {
        return value == null || value.isBlank() || value.startsWith("${") ? null : value;
    }
}
