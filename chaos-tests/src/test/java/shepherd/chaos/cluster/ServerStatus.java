package shepherd.chaos.cluster;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a ZooKeeper server says about itself in answer to the {@code srvr} four-letter word: its role and the last
 * zxid it has seen. A server that is not in a quorum answers "not currently serving requests"; one that does not
 * answer at all is {@link Mode#UNREACHABLE}.
 *
 * @param zxid the server's last zxid, or -1 when it did not say
 */
public record ServerStatus(Mode mode, long zxid) {
    /** The roles a server can report, plus the two ways of not serving. */
    public enum Mode {
        LEADER, FOLLOWER, OBSERVER, STANDALONE, NOT_SERVING, UNREACHABLE;

        /** Serving clients as a member of a quorum. */
        public boolean inQuorum() {
            return this == LEADER || this == FOLLOWER;
        }
    }

    /** An answer is a few hundred bytes; anything longer is not {@code srvr}'s. */
    static final int ANSWER_BYTES_MAX = 64 * 1024;
    private static final Pattern MODE = Pattern.compile("^Mode: (\\w+)", Pattern.MULTILINE);
    private static final Pattern ZXID = Pattern.compile("^Zxid: 0x([0-9a-fA-F]+)", Pattern.MULTILINE);

    static final ServerStatus UNREACHABLE = new ServerStatus(Mode.UNREACHABLE, -1);

    /** The zxid's epoch: the leader's term that produced it; a stale leader reports an older one. */
    public long zxidEpoch() {
        return zxid < 0 ? -1 : zxid >>> 32;
    }

    /** Asks {@code server} with {@code srvr}; {@link #UNREACHABLE} if it cannot be reached within {@code timeout}. */
    static ServerStatus query(InetSocketAddress server, Duration timeout) {
        try {
            return parse(ask(server, "srvr", timeout));
        } catch (IOException e) {
            return UNREACHABLE;
        }
    }

    /** Sends a four-letter word and reads the answer to the end (the server closes the connection). */
    static String ask(InetSocketAddress server, String word, Duration timeout) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(server, (int) timeout.toMillis());
            socket.setSoTimeout((int) timeout.toMillis());
            socket.getOutputStream().write(word.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            byte[] buffer = new byte[4096];
            for (int n; (n = in.read(buffer)) != -1; ) {
                answer.write(buffer, 0, n);
                if (answer.size() > ANSWER_BYTES_MAX) {
                    throw new IOException(server + " answered '" + word + "' with over " + ANSWER_BYTES_MAX
                            + " bytes");
                }
            }
            return answer.toString(StandardCharsets.US_ASCII);
        }
    }

    /** Reads a {@code srvr} answer; anything without a mode line is a server that does not serve. */
    static ServerStatus parse(String answer) {
        Matcher mode = MODE.matcher(answer);
        if (!mode.find()) {
            return new ServerStatus(Mode.NOT_SERVING, -1);
        }
        Mode parsed;
        try {
            parsed = Mode.valueOf(mode.group(1).toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException unknown) {
            parsed = Mode.NOT_SERVING;
        }
        Matcher zxid = ZXID.matcher(answer);
        return new ServerStatus(parsed, zxid.find() ? Long.parseUnsignedLong(zxid.group(1), 16) : -1);
    }
}
