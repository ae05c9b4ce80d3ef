package shepherd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.ConsultRequest;
import shepherd.protocol.ConsultResponse;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.Frame;
import shepherd.protocol.FrameCodec;
import shepherd.protocol.FrameKind;
import shepherd.protocol.Response;
import shepherd.protocol.StartRequest;
import shepherd.transport.internal.ChannelConnection;

/**
 * A peer that does not read what we send must not make us buffer without bound: we refuse new requests once the
 * write buffer passes its high water mark, and we stop reading a peer's requests while we cannot write the answers.
 * The peer here is a raw socket with a small receive buffer, so nothing but the transport's own limits is tested.
 */
class BackPressureIT {
    private static final Logger log = LoggerFactory.getLogger(BackPressureIT.class);
    private static final int LOW_BYTES = 32 * 1024;
    private static final int HIGH_BYTES = 64 * 1024;
    private static final FrameCodec CODEC = new FrameCodec();

    @Test
    void peerThatStopsReadingGetsNewRequestsRefusedInsteadOfBuffered() throws Exception {
        TransportConfig config = TransportConfig.defaults()
                .withWriteBufferWaterMarksBytes(LOW_BYTES, HIGH_BYTES)
                .withPendingRequestsMax(100_000)
                .withRequestTimeoutMs(120_000);
        StartRequest start = Samples.startRequest(1, 1, 100);
        int frameBytes = CODEC.encodedSize(Frame.request(0, start));
        try (Loopback loopback = Loopback.start(config, RecordingHandler.answering())) {
            Socket peer = rawPeer(loopback); // closed below, by a reset
            ChannelConnection connection = loopback.acceptedConnection();

            // Offer far more than the socket can take (90 MB). Whatever the kernel has taken is gone from our
            // memory; what we hold is the unsent bytes, which must stay within the high water mark and two frames:
            // 1. a request passes the writability check just below the mark and its write task is queued;
            // 2. when the event loop runs that task, Netty first takes back the task's estimated size, so the
            //    channel is briefly writable again, and only then adds the frame to the outbound buffer;
            // 3. a request checked in that instant is accepted too. Under load (a busy 2-core machine) this happens.
            long bound = HIGH_BYTES + 2L * (frameBytes + 64); // + Netty's estimate of a queued write task's overhead
            List<CompletableFuture<Response>> accepted = new ArrayList<>();
            int refused = 0;
            int refusedInARow = 0;
            for (int i = 0; i < 20_000 && refusedInARow < 1_000; i++) {
                CompletableFuture<Response> sent = connection.request(start);
                if (sent.isCompletedExceptionally()) { // refusals are immediate: nothing was queued
                    Await.failure(sent, WriteBufferFullException.class);
                    refused++;
                    refusedInARow++;
                } else {
                    accepted.add(sent);
                    refusedInARow = 0;
                }
                assertTrue(connection.unsentBytes() <= bound,
                        connection.unsentBytes() + " unsent bytes, above " + bound);
            }
            log.info("accepted {} requests of {} bytes (the kernel took most), refused {}; {} bytes unsent",
                    accepted.size(), frameBytes, refused, connection.unsentBytes());
            assertTrue(refused > 0, "never refused: the transport kept buffering");
            // The kernel's socket buffers on loopback hold a few MB at most; we offered 90 MB.
            assertTrue((long) accepted.size() * frameBytes < 16L << 20,
                    "accepted " + accepted.size() + " requests of " + frameBytes + " bytes");
            assertEquals(accepted.size(), connection.pendingRequests());

            // Other connections are unaffected.
            Connection other = loopback.connect(RecordingHandler.answering());
            assertEquals(Samples.responseTo(new ConsultRequest()), Await.get(other.request(new ConsultRequest())));

            // The stuck peer goes away: everything it was sent fails as a closed connection, nothing leaks.
            peer.setSoLinger(true, 0); // reset, as a crashed peer would
            peer.close();
            for (CompletableFuture<Response> request : accepted) {
                Await.failure(request, ConnectionClosedException.class);
            }
            Await.get(connection.closeFuture());
            assertEquals(0, connection.pendingRequests());
        }
    }

    @Test
    void peerThatSendsRequestsButDoesNotReadTheAnswersIsNoLongerRead() throws Exception {
        TransportConfig config = TransportConfig.defaults().withWriteBufferWaterMarksBytes(LOW_BYTES, HIGH_BYTES);
        ConsultResponse bigAnswer = bigConsultResponse();
        int answerBytes = CODEC.encodedSize(Frame.response(0, bigAnswer));
        int requests = 20_000; // 20 MB of answers: far more than the kernel's socket buffers hold
        try (Loopback loopback = Loopback.start(config, RecordingHandler.answering(request -> bigAnswer));
             Socket peer = rawPeer(loopback)) {
            ChannelConnection connection = loopback.acceptedConnection();
            AtomicReference<Throwable> writerFailure = new AtomicReference<>();
            Thread writer = new Thread(() -> writeConsults(peer, requests, writerFailure), "raw-peer-writer");
            writer.setDaemon(true);
            writer.start();

            // The server fills its write buffer with answers, then stops reading.
            Await.until(() -> !connection.isReading() && !connection.isWritable(),
                    () -> "still reading; unsent=" + connection.unsentBytes());
            long bound = HIGH_BYTES + answerBytes;
            assertTrue(connection.unsentBytes() <= bound,
                    connection.unsentBytes() + " unsent bytes, above " + bound);
            assertTrue(loopback.serverHandler.requests.size() < requests, "read every request regardless");
            log.info("paused after {} of {} requests with {} unsent bytes (bound {})",
                    loopback.serverHandler.requests.size(), requests, connection.unsentBytes(), bound);

            // Once the peer reads, everything flows again and every request is answered, in order.
            DataInputStream in = new DataInputStream(peer.getInputStream());
            for (int i = 0; i < requests; i++) {
                int size = in.readInt();
                byte[] body = new byte[size];
                in.readFully(body);
                Frame frame = CODEC.decode(ByteBuffer.wrap(body));
                assertEquals(FrameKind.RESPONSE, frame.header().kind());
                assertEquals(i, frame.header().correlationId());
                assertTrue(connection.unsentBytes() <= bound, connection.unsentBytes() + " unsent bytes");
            }
            writer.join(Await.TIMEOUT.toMillis());
            assertEquals(null, writerFailure.get());
            assertEquals(requests, loopback.serverHandler.requests.size());
            assertEquals(0, connection.awaitingResponses());
        }
    }

    private static Socket rawPeer(Loopback loopback) throws IOException {
        Socket peer = new Socket();
        peer.setReceiveBufferSize(4 * 1024); // before connecting, so the window is small from the start
        peer.connect(new InetSocketAddress(Loopback.HOST, loopback.server.port()));
        return peer;
    }

    private static void writeConsults(Socket peer, int count, AtomicReference<Throwable> failure) {
        try {
            OutputStream out = peer.getOutputStream();
            int batch = 100;
            for (int first = 0; first < count; first += batch) {
                ByteBuffer bytes = ByteBuffer.allocate(batch * 13);
                for (int id = first; id < first + batch; id++) {
                    bytes.put(CODEC.encode(Frame.request(id, new ConsultRequest())));
                }
                out.write(bytes.array(), 0, bytes.position());
            }
            out.flush();
        } catch (Throwable e) {
            failure.set(e);
        }
    }

    private static ConsultResponse bigConsultResponse() {
        List<BrokerInfo> brokers = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            brokers.add(new BrokerInfo(i, "broker-" + i + ".example.internal", 9092, "creator-" + i + ":1700000000"));
        }
        return new ConsultResponse(ErrorCode.NONE, 0, 1, brokers);
    }
}
