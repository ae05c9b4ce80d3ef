package shepherd.benchmarks.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * The ZooKeeper server's own request counters, read with its four-letter word {@code srvr} (which the embedded
 * server whitelists, with {@code mntr}): {@code Zxid} grows by one per write transaction (a {@code multi} is one,
 * whatever its size), {@code Received} (mntr's {@code zk_packets_received}) by one per request of any client (reads,
 * writes, and the clients' heartbeats, a few per second in all at the harness's timings). The difference between two
 * snapshots is what happened in between, on the whole server.
 */
record ZkCounters(long zxid, long packetsReceived) {

    static ZkCounters read(String connectString) {
        String hostPort = connectString.contains("/") ? connectString.substring(0, connectString.indexOf('/'))
                : connectString;
        String first = hostPort.split(",")[0];
        String host = first.substring(0, first.lastIndexOf(':'));
        int port = Integer.parseInt(first.substring(first.lastIndexOf(':') + 1));
        // One word, srvr, for both: mntr's answer also computes every latency percentile the server keeps, work (and
        // compiling) that would land on the cores between, and sometimes during, the repetitions measured.
        String srvr = fourLetterWord(host, port, "srvr");
        long zxid = Long.decode(value(srvr, "Zxid:"));
        long packets = Long.parseLong(value(srvr, "Received:"));
        return new ZkCounters(zxid, packets);
    }

    ZkCounters minus(ZkCounters before) {
        return new ZkCounters(zxid - before.zxid, packetsReceived - before.packetsReceived);
    }

    private static String value(String text, String key) {
        for (String line : text.split("\n")) {
            if (line.startsWith(key)) {
                return line.substring(key.length()).trim();
            }
        }
        throw new IllegalStateException("no '" + key + "' in the server's answer:\n" + text);
    }

    private static String fourLetterWord(String host, int port, String word) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 5_000);
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            out.write(word.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("four-letter word '" + word + "' to " + host + ":" + port + " failed", e);
        }
    }
}
