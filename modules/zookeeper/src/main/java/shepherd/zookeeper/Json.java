package shepherd.zookeeper;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The small, strict JSON this module needs and nothing more: objects, arrays, strings with escapes, integers
 * (as {@code Long}), booleans and null. No fractions or exponents (no value of ours has one), no duplicate keys,
 * nothing after the value, invalid UTF-8 refused, nesting at most {@link #DEPTH_MAX}. Hand-written because the
 * module may depend on nothing but ZooKeeper and SLF4J, and because a parser that only throws {@link Malformed}
 * is what lets the codec promise a typed error for any garbage.
 */
final class Json {
    static final int DEPTH_MAX = 16;

    /** Why some bytes are not JSON of the accepted kind. */
    static final class Malformed extends Exception {
        Malformed(String reason) {
            super(reason, null, false, false);
        }
    }

    private final String text;
    private int pos;

    private Json(String text) {
        this.text = text;
    }

    /** Parses one value: {@code Map<String,Object>}, {@code List<Object>}, String, Long, Boolean or null. */
    static Object parse(byte[] bytes) throws Malformed {
        if (bytes == null) {
            throw new Malformed("no data");
        }
        Json json = new Json(utf8(bytes));
        json.skipSpace();
        Object value = json.value(0);
        json.skipSpace();
        if (json.pos != json.text.length()) {
            throw new Malformed("unexpected content after the value at offset " + json.pos);
        }
        return value;
    }

    private static String utf8(byte[] bytes) throws Malformed {
        try {
            CharBuffer chars = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes));
            return chars.toString();
        } catch (CharacterCodingException e) {
            throw new Malformed("invalid UTF-8");
        }
    }

    private Object value(int depth) throws Malformed {
        if (depth > DEPTH_MAX) {
            throw new Malformed("nested deeper than " + DEPTH_MAX);
        }
        if (pos >= text.length()) {
            throw new Malformed("truncated: a value expected at offset " + pos);
        }
        char c = text.charAt(pos);
        return switch (c) {
            case '{' -> object(depth);
            case '[' -> array(depth);
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> {
                if (c == '-' || c >= '0' && c <= '9') {
                    yield integer();
                }
                throw new Malformed("unexpected '" + c + "' at offset " + pos);
            }
        };
    }

    private Map<String, Object> object(int depth) throws Malformed {
        Map<String, Object> map = new LinkedHashMap<>();
        pos++;
        skipSpace();
        if (peek() == '}') {
            pos++;
            return map;
        }
        while (true) {
            skipSpace();
            if (peek() != '"') {
                throw new Malformed("a key expected at offset " + pos);
            }
            String key = string();
            skipSpace();
            expect(':');
            skipSpace();
            Object value = value(depth + 1);
            if (map.containsKey(key)) {
                throw new Malformed("duplicate key \"" + key + "\"");
            }
            map.put(key, value);
            skipSpace();
            char c = next();
            if (c == '}') {
                return map;
            }
            if (c != ',') {
                throw new Malformed("',' or '}' expected at offset " + (pos - 1));
            }
        }
    }

    private List<Object> array(int depth) throws Malformed {
        List<Object> list = new ArrayList<>();
        pos++;
        skipSpace();
        if (peek() == ']') {
            pos++;
            return list;
        }
        while (true) {
            skipSpace();
            list.add(value(depth + 1));
            skipSpace();
            char c = next();
            if (c == ']') {
                return list;
            }
            if (c != ',') {
                throw new Malformed("',' or ']' expected at offset " + (pos - 1));
            }
        }
    }

    private String string() throws Malformed {
        pos++;
        StringBuilder out = new StringBuilder();
        while (true) {
            char c = next();
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20) {
                throw new Malformed("control character in a string at offset " + (pos - 1));
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char e = next();
            switch (e) {
                case '"', '\\', '/' -> out.append(e);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> out.append(hex4());
                default -> throw new Malformed("bad escape '\\" + e + "' at offset " + (pos - 2));
            }
        }
    }

    private char hex4() throws Malformed {
        if (pos + 4 > text.length()) {
            throw new Malformed("truncated \\u escape");
        }
        int v = 0;
        for (int i = 0; i < 4; i++) {
            int d = Character.digit(text.charAt(pos++), 16);
            if (d < 0) {
                throw new Malformed("bad \\u escape at offset " + (pos - 1));
            }
            v = v * 16 + d;
        }
        return (char) v;
    }

    private Long integer() throws Malformed {
        int start = pos;
        if (peekOrZero() == '-') {
            pos++;
        }
        int digits = pos;
        while (pos < text.length() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9') {
            pos++;
        }
        if (pos == digits) {
            throw new Malformed("a digit expected at offset " + pos);
        }
        if (text.charAt(digits) == '0' && pos - digits > 1) {
            throw new Malformed("leading zero at offset " + digits);
        }
        char after = peekOrZero();
        if (after == '.' || after == 'e' || after == 'E') {
            throw new Malformed("only integers are accepted, offset " + pos);
        }
        String number = text.substring(start, pos);
        try {
            return Long.parseLong(number);
        } catch (NumberFormatException e) {
            throw new Malformed("integer out of range: " + abbreviate(number));
        }
    }

    private Object literal(String word, Object value) throws Malformed {
        if (!text.startsWith(word, pos)) {
            throw new Malformed("unexpected token at offset " + pos);
        }
        pos += word.length();
        return value;
    }

    private void skipSpace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    private char peek() throws Malformed {
        if (pos >= text.length()) {
            throw new Malformed("truncated at offset " + pos);
        }
        return text.charAt(pos);
    }

    private char peekOrZero() {
        return pos < text.length() ? text.charAt(pos) : 0;
    }

    private char next() throws Malformed {
        char c = peek();
        pos++;
        return c;
    }

    private void expect(char c) throws Malformed {
        if (next() != c) {
            throw new Malformed("'" + c + "' expected at offset " + (pos - 1));
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 30 ? s : s.substring(0, 30) + "… (" + s.length() + " chars)";
    }

    // ------------------------------------------------------------------ writing

    /** Writes a value of the kinds {@link #parse} returns (Integer and Short accepted as numbers too). */
    static byte[] write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void write(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String s) {
            quote(s, out);
        } else if (value instanceof Long || value instanceof Integer || value instanceof Short
                || value instanceof Boolean) {
            out.append(value);
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                out.append(first ? "" : ",");
                first = false;
                quote((String) e.getKey(), out);
                out.append(':');
                write(e.getValue(), out);
            }
            out.append('}');
        } else if (value instanceof List<?> list) {
            out.append('[');
            for (int i = 0; i < list.size(); i++) {
                out.append(i == 0 ? "" : ",");
                write(list.get(i), out);
            }
            out.append(']');
        } else {
            throw new IllegalArgumentException("not a JSON value of ours: " + value.getClass().getName());
        }
    }

    private static void quote(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || Character.isSurrogate(c)) {
                        // Escaping surrogates keeps a lone one (legal in a Java String) from becoming invalid UTF-8.
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
