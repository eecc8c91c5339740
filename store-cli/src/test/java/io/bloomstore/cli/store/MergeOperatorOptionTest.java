package io.bloomstore.cli.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.cli.CliRunner;
import io.bloomstore.cli.CliRunner.Result;
import io.bloomstore.cli.ExitCodes;
import io.bloomstore.core.MergeOperators;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reading a store with merge operands from the command line: without {@code --merge-operator} a
 * key with operands is a clear usage error naming the option (other keys read as ever); with it,
 * gets and scans merge.
 */
class MergeOperatorOptionTest {
    @TempDir
    Path tmp;

    private Result cli(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "--data";
        all[1] = tmp.resolve("db").toString();
        System.arraycopy(args, 0, all, 2, args.length);
        return CliRunner.run(all);
    }

    @Test
    void keysWithOperandsNeedTheOperator() throws Exception {
        try (Store s = Store.open(tmp.resolve("db"), StoreOptions.builder()
                .mergeOperator(MergeOperators.append(",".getBytes(StandardCharsets.UTF_8))).build())) {
            s.put(b("plain"), b("p"));
            s.merge(b("list"), b("a"));
            s.merge(b("list"), b("b"));
        }
        Result missing = cli("get", "list");
        assertEquals(ExitCodes.USAGE, missing.exitCode(), missing.err());
        assertTrue(missing.err().contains("--merge-operator"), missing.err());
        assertEquals(ExitCodes.OK, cli("get", "plain").exitCode());
        Result merged = cli("get", "--merge-operator", "append:,", "list");
        assertEquals(ExitCodes.OK, merged.exitCode(), merged.err());
        assertEquals("a,b", merged.out().strip());
        Result scan = cli("scan", "--merge-operator", "append:,");
        assertEquals(ExitCodes.OK, scan.exitCode(), scan.err());
        assertTrue(scan.out().contains("list\ta,b"), scan.out());
        Result bad = cli("get", "--merge-operator", "sum", "list");
        assertEquals(ExitCodes.USAGE, bad.exitCode());
        assertTrue(bad.err().contains("int64add"), bad.err());
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
