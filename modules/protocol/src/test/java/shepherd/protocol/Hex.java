package shepherd.protocol;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/** Reads the annotated hex of the golden files: whitespace-separated byte pairs, {@code #} comments to end of line. */
final class Hex {
    private Hex() {}

    static byte[] parse(String annotated) {
        StringBuilder digits = new StringBuilder();
        for (String line : annotated.split("\n", -1)) {
            int comment = line.indexOf('#');
            String code = comment < 0 ? line : line.substring(0, comment);
            for (String token : code.trim().split("\\s+")) {
                if (token.isEmpty()) {
                    continue;
                }
                if (token.length() != 2) {
                    throw new IllegalArgumentException("Not a hex byte: '" + token + "' in line: " + line);
                }
                digits.append(token);
            }
        }
        return HexFormat.of().parseHex(digits);
    }

    static byte[] golden(String name) {
        String resource = "/golden/" + name + ".hex";
        try (InputStream in = Hex.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("No golden file " + resource);
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String of(ByteBuffer buffer) {
        ByteBuffer copy = buffer.duplicate();
        byte[] bytes = new byte[copy.remaining()];
        copy.get(bytes);
        return HexFormat.ofDelimiter(" ").formatHex(bytes);
    }

    static byte[] bytes(ByteBuffer buffer) {
        ByteBuffer copy = buffer.duplicate();
        byte[] bytes = new byte[copy.remaining()];
        copy.get(bytes);
        return bytes;
    }
}
