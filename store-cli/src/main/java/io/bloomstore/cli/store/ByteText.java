package io.bloomstore.cli.store;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * How the store commands write keys and values, which are arbitrary bytes, as text — on the
 * command line, in {@code load} files and in {@code get}/{@code scan} output — so that what
 * {@code scan} prints can be loaded again byte for byte.
 *
 * <ul>
 *   <li>{@link #ESCAPED} (the default): UTF-8 text with backslash escapes {@code \\} (a
 *       backslash), {@code \t}, {@code \n}, {@code \r} and {@code \xNN} (any byte, two hex
 *       digits). Output escapes the backslash, every ASCII control character (so a line never
 *       holds a raw TAB or line break) and every byte that is not part of valid UTF-8; any other
 *       text is printed as it is.
 *   <li>{@link #HEX} ({@code --hex}): the bytes as hexadecimal digits, two per byte.
 * </ul>
 *
 * <p>Thread safety: stateless.
 */
public enum ByteText {
    ESCAPED {
        @Override
        public byte[] decode(String text) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(text.length());
            int runStart = 0;
            int i = 0;
            while (i < text.length()) {
                if (text.charAt(i) != '\\') {
                    i++;
                    continue;
                }
                out.writeBytes(text.substring(runStart, i).getBytes(StandardCharsets.UTF_8));
                if (i + 1 == text.length()) {
                    throw new IllegalArgumentException("a lone backslash at the end of '" + text
                            + "' (write a backslash as \\\\)");
                }
                char c = text.charAt(i + 1);
                switch (c) {
                    case '\\' -> out.write('\\');
                    case 't' -> out.write('\t');
                    case 'n' -> out.write('\n');
                    case 'r' -> out.write('\r');
                    case 'x' -> {
                        if (i + 4 > text.length() || Character.digit(text.charAt(i + 2), 16) < 0
                                || Character.digit(text.charAt(i + 3), 16) < 0) {
                            throw new IllegalArgumentException("\\x needs two hex digits at column " + (i + 1)
                                    + " of '" + text + "'");
                        }
                        out.write(HexFormat.fromHexDigits(text, i + 2, i + 4));
                        i += 2;
                    }
                    default -> throw new IllegalArgumentException("unknown escape '\\" + c + "' at column " + (i + 1)
                            + " of '" + text + "' (known: \\\\ \\t \\n \\r \\xNN)");
                }
                i += 2;
                runStart = i;
            }
            out.writeBytes(text.substring(runStart).getBytes(StandardCharsets.UTF_8));
            return out.toByteArray();
        }

        @Override
        public String encode(byte[] bytes) {
            StringBuilder sb = new StringBuilder(bytes.length + 8);
            int i = 0;
            while (i < bytes.length) {
                int b = bytes[i] & 0xFF;
                if (b < 0x80) {
                    switch (b) {
                        case '\\' -> sb.append("\\\\");
                        case '\t' -> sb.append("\\t");
                        case '\n' -> sb.append("\\n");
                        case '\r' -> sb.append("\\r");
                        default -> {
                            if (b < 0x20 || b == 0x7F) {
                                appendHexEscape(sb, b);
                            } else {
                                sb.append((char) b);
                            }
                        }
                    }
                    i++;
                    continue;
                }
                int length = utf8SequenceLength(bytes, i);
                if (length == 0) {
                    appendHexEscape(sb, b);
                    i++;
                } else {
                    sb.append(new String(bytes, i, length, StandardCharsets.UTF_8));
                    i += length;
                }
            }
            return sb.toString();
        }
    },

    HEX {
        @Override
        public byte[] decode(String text) {
            if (text.length() % 2 != 0) {
                throw new IllegalArgumentException("'" + text + "' is not hex: it has an odd number of digits");
            }
            try {
                return HexFormat.of().parseHex(text);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("'" + text + "' is not hex (two digits 0-9a-f per byte)");
            }
        }

        @Override
        public String encode(byte[] bytes) {
            return HexFormat.of().formatHex(bytes);
        }
    };

    /** The bytes the text stands for; {@link IllegalArgumentException} saying what is wrong. */
    public abstract byte[] decode(String text);

    /** The text for the bytes; {@link #decode} gives them back. */
    public abstract String encode(byte[] bytes);

    /** {@link #HEX} when {@code hex}, else {@link #ESCAPED}. */
    public static ByteText of(boolean hex) {
        return hex ? HEX : ESCAPED;
    }

    private static void appendHexEscape(StringBuilder sb, int b) {
        sb.append("\\x").append(HexFormat.of().toHexDigits((byte) b));
    }

    /**
     * Length of the well-formed UTF-8 sequence of two to four bytes at {@code i}, or 0 when there
     * is none (a stray continuation byte, a truncated sequence, an overlong form or a surrogate):
     * such bytes are printed as {@code \xNN}.
     */
    private static int utf8SequenceLength(byte[] bytes, int i) {
        int lead = bytes[i] & 0xFF;
        int length = lead >= 0xF0 && lead <= 0xF4 ? 4 : lead >= 0xE0 ? (lead <= 0xEF ? 3 : 0) : lead >= 0xC2 ? 2 : 0;
        if (length == 0 || i + length > bytes.length) {
            return 0;
        }
        for (int j = 1; j < length; j++) {
            if ((bytes[i + j] & 0xC0) != 0x80) {
                return 0;
            }
        }
        // Decoding replaces overlong forms and surrogates with U+FFFD, so they do not encode back.
        byte[] slice = Arrays.copyOfRange(bytes, i, i + length);
        return Arrays.equals(new String(slice, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8), slice)
                ? length : 0;
    }
}
