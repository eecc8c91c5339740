package io.bloomstore.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class ProcIoTest {

    @Test
    void parsesTheLinuxFormat() {
        String text = "rchar: 6976\nwchar: 0\nsyscr: 10\nsyscw: 0\nread_bytes: 4096\nwrite_bytes: 0\n";
        assertEquals(Optional.of(new ProcIo(10, 4096)), ProcIo.parse(text));
    }

    @Test
    void missingFieldsMeanNoReading() {
        assertEquals(Optional.empty(), ProcIo.parse("rchar: 1\n"));
        assertEquals(Optional.empty(), ProcIo.parse("syscr: x\nread_bytes: 1\n"));
    }

    @Test
    void writtenBytesLessCancelled() {
        String text = "rchar: 6976\nwchar: 0\nsyscr: 10\nsyscw: 0\nread_bytes: 4096\nwrite_bytes: 81920\n"
                + "cancelled_write_bytes: 8192\n";
        assertEquals(73728, ProcIo.parseWriteBytes(text));
        assertEquals(-1, ProcIo.parseWriteBytes("write_bytes: 4096\n"));
        assertEquals(-1, ProcIo.parseWriteBytes("write_bytes: x\ncancelled_write_bytes: 0\n"));
    }
}
