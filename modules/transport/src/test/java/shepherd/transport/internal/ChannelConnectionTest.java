package shepherd.transport.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import shepherd.protocol.ApiKey;
import shepherd.protocol.ConsultRequest;
import shepherd.protocol.DecodeException;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.Frame;
import shepherd.protocol.FrameCodec;
import shepherd.protocol.FrameKind;
import shepherd.protocol.FrameTooLargeException;
import shepherd.protocol.PartitionAssignment;
import shepherd.protocol.PingRequest;
import shepherd.protocol.PingResponse;
import shepherd.protocol.Request;
import shepherd.protocol.Response;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StartResponse;
import shepherd.protocol.StopRequest;
import shepherd.protocol.StopResponse;
import shepherd.transport.Await;
import shepherd.transport.ConnectionClosedException;
import shepherd.transport.InvalidFrameException;
import shepherd.transport.RecordingHandler;
import shepherd.transport.RecordingHandler.Closed;
import shepherd.transport.RecordingHandler.Received;
import shepherd.transport.RequestTimeoutException;
import shepherd.transport.Samples;
import shepherd.transport.TooManyPendingRequestsException;
import shepherd.transport.TransportConfig;
import shepherd.transport.UnexpectedResponseException;
import shepherd.transport.WriteBufferFullException;

/**
 * The pipeline (framing, codec, connection) on an {@link EmbeddedChannel}: what reaches the handler and what goes
 * back on the wire for every shape of input, with time driven by hand.
 */
class ChannelConnectionTest {
    private static final int FRAME_BYTES_MAX = 1_024;
    private static final TransportConfig CONFIG = TransportConfig.defaults().withFrameBytesMax(FRAME_BYTES_MAX);
    private static final FrameCodec CODEC = new FrameCodec(FRAME_BYTES_MAX);

    private EmbeddedChannel channel;
    private ChannelConnection connection;
    private RecordingHandler handler;

    private void open(TransportConfig config, RecordingHandler recording) {
        handler = recording;
        List<ChannelConnection> installed = new ArrayList<>();
        channel = new EmbeddedChannel(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                installed.add(ChannelConnection.install(ch, config, new FrameCodec(config.frameBytesMax()),
                        recording));
            }
        });
        channel.freezeTime();
        connection = installed.get(0);
        assertEquals(connection, Await.take(handler.opened));
    }

    private void open() {
        open(CONFIG, RecordingHandler.silent());
    }

    @AfterEach
    void tearDown() {
        if (channel != null) {
            channel.finishAndReleaseAll();
        }
    }

    // ---- Framing ---------------------------------------------------------------------------------------------

    @Test
    void frameSplitOverSeveralReadsIsDeliveredOnceWhole() {
        open();
        StartRequest start = Samples.startRequest(3, 9, 5);
        byte[] bytes = encode(Frame.request(11, start));
        int[] cuts = {1, 3, 4, 5, 12, 13, bytes.length - 1, bytes.length};
        int from = 0;
        for (int cut : cuts) {
            assertTrue(handler.requests.isEmpty(), "delivered before the frame was complete");
            channel.writeInbound(Unpooled.wrappedBuffer(bytes, from, cut - from));
            from = cut;
        }
        Received received = Await.take(handler.requests);
        assertEquals(11, received.correlationId());
        assertEquals(start, received.request());
        assertTrue(handler.requests.isEmpty());
        assertTrue(channel.isOpen());
    }

    @Test
    void severalFramesInOneBufferAreAllDeliveredInOrder() {
        open();
        List<Request> sent = Samples.everyRequest();
        ByteBuf all = Unpooled.buffer();
        for (int i = 0; i < sent.size(); i++) {
            all.writeBytes(encode(Frame.request(100 + i, sent.get(i))));
        }
        channel.writeInbound(all);
        for (int i = 0; i < sent.size(); i++) {
            Received received = Await.take(handler.requests);
            assertEquals(100 + i, received.correlationId());
            assertEquals(sent.get(i), received.request());
        }
        assertTrue(channel.isOpen());
    }

    @Test
    void aFrameExactlyAtTheLimitIsAccepted() {
        open();
        StartRequest request = largestStartRequestWithin(FRAME_BYTES_MAX);
        byte[] bytes = encode(Frame.request(1, request));
        assertEquals(FRAME_BYTES_MAX, bytes.length);
        channel.writeInbound(Unpooled.wrappedBuffer(bytes));
        assertEquals(request, Await.take(handler.requests).request());
        assertTrue(channel.isOpen());
    }

    // ---- Bad input -------------------------------------------------------------------------------------------

    @Test
    void oversizedRequestIsAnsweredInvalidRequestThenClosed() throws DecodeException {
        open();
        ByteBuffer frame = ByteBuffer.allocate(4 + 9 + 20);
        frame.putInt(FRAME_BYTES_MAX) // 4 + FRAME_BYTES_MAX > the limit by 4 bytes
                .put(FrameKind.REQUEST.code()).putShort(ApiKey.PING.id()).putShort((short) 0).putInt(42);
        channel.writeInbound(Unpooled.wrappedBuffer(frame.array()));

        Frame reply = readOutboundFrame();
        assertEquals(FrameKind.RESPONSE, reply.header().kind());
        assertEquals(42, reply.header().correlationId());
        assertEquals(PingResponse.error(ErrorCode.INVALID_REQUEST), reply.message());
        assertNull(readOutboundFrameOrNull());
        assertClosedForBadInput();
        assertTrue(handler.requests.isEmpty());
    }

    @Test
    void oversizedFrameWaitsForItsHeaderBeforeAnswering() throws DecodeException {
        open();
        ByteBuffer frame = ByteBuffer.allocate(4 + 9);
        frame.putInt(Integer.MAX_VALUE)
                .put(FrameKind.REQUEST.code()).putShort(ApiKey.STOP.id()).putShort((short) 0).putInt(7);
        byte[] bytes = frame.array();
        channel.writeInbound(Unpooled.wrappedBuffer(bytes, 0, 6));
        assertTrue(channel.isOpen(), "closed before the correlation id could be read");
        channel.writeInbound(Unpooled.wrappedBuffer(bytes, 6, bytes.length - 6));
        Frame reply = readOutboundFrame();
        assertEquals(7, reply.header().correlationId());
        assertEquals(StopResponse.error(ErrorCode.INVALID_REQUEST), reply.message());
        assertClosedForBadInput();
    }

    @Test
    void oversizedResponseIsClosedWithoutAReply() {
        open();
        ByteBuffer frame = ByteBuffer.allocate(4 + 9);
        frame.putInt(10 * FRAME_BYTES_MAX)
                .put(FrameKind.RESPONSE.code()).putShort(ApiKey.PING.id()).putShort((short) 0).putInt(5);
        channel.writeInbound(Unpooled.wrappedBuffer(frame.array()));
        assertNull(readOutboundFrameOrNull());
        assertClosedForBadInput();
    }

    @Test
    void malformedRequestWithAReadableHeaderIsAnsweredInvalidRequestThenClosed() throws DecodeException {
        open();
        // A Ping request whose body is 3 bytes short.
        ByteBuffer frame = ByteBuffer.allocate(4 + 9 + 5);
        frame.putInt(9 + 5).put(FrameKind.REQUEST.code()).putShort(ApiKey.PING.id()).putShort((short) 0)
                .putInt(77).putInt(1).put((byte) 0);
        channel.writeInbound(Unpooled.wrappedBuffer(frame.array()));

        Frame reply = readOutboundFrame();
        assertEquals(77, reply.header().correlationId());
        assertEquals(PingResponse.error(ErrorCode.INVALID_REQUEST), reply.message());
        Closed closed = assertClosedForBadInput();
        assertInstanceOf(DecodeException.class, closed.cause().orElseThrow().getCause());
    }

    @Test
    void requestOfAnUnsupportedVersionIsAnsweredUnsupportedVersion() throws DecodeException {
        open();
        ByteBuffer frame = ByteBuffer.allocate(4 + 9);
        frame.putInt(9).put(FrameKind.REQUEST.code()).putShort(ApiKey.CONSULT.id()).putShort((short) 99)
                .putInt(8);
        channel.writeInbound(Unpooled.wrappedBuffer(frame.array()));
        Frame reply = readOutboundFrame();
        assertEquals(8, reply.header().correlationId());
        assertEquals(ErrorCode.UNSUPPORTED_VERSION, ((Response) reply.message()).errorCode());
        assertClosedForBadInput();
    }

    @Test
    void garbageWithoutAReadableHeaderIsClosedWithoutAReply() {
        open();
        channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 3, 'a', 'b', 'c'}));
        assertNull(readOutboundFrameOrNull());
        assertClosedForBadInput();
    }

    @Test
    void garbageOfAnUnknownKindIsClosedWithoutAReply() {
        open();
        ByteBuffer frame = ByteBuffer.allocate(4 + 9 + 4);
        frame.putInt(13).put((byte) 9).putShort((short) 0).putShort((short) 0).putInt(3).putInt(0xdeadbeef);
        channel.writeInbound(Unpooled.wrappedBuffer(frame.array()));
        assertNull(readOutboundFrameOrNull());
        assertClosedForBadInput();
    }

    @Test
    void negativeSizeIsClosedWithoutDecodingAnythingAfterIt() {
        open();
        ByteBuf bytes = Unpooled.buffer();
        bytes.writeInt(-1).writeByte(FrameKind.RESPONSE.code()).writeShort(0).writeShort(0).writeInt(1);
        bytes.writeBytes(encode(Frame.request(2, new ConsultRequest())));
        channel.writeInbound(bytes);
        assertNull(readOutboundFrameOrNull());
        assertClosedForBadInput();
        assertTrue(handler.requests.isEmpty());
    }

    @Test
    void framesAfterBadInputAreNeitherDeliveredNorAnswered() throws DecodeException {
        open();
        ByteBuf bytes = Unpooled.buffer();
        bytes.writeBytes(encode(Frame.request(1, new PingRequest(1, 1, (short) 0))));
        bytes.writeInt(9 + 1).writeByte(FrameKind.REQUEST.code()).writeShort(ApiKey.STOP.id()).writeShort(0)
                .writeInt(2).writeByte(0); // a truncated Stop
        bytes.writeBytes(encode(Frame.request(3, new ConsultRequest())));
        channel.writeInbound(bytes);

        assertEquals(1, Await.take(handler.requests).correlationId());
        Frame reply = readOutboundFrame();
        assertEquals(2, reply.header().correlationId());
        assertEquals(StopResponse.error(ErrorCode.INVALID_REQUEST), reply.message());
        assertNull(readOutboundFrameOrNull());
        assertClosedForBadInput();
        assertTrue(handler.requests.isEmpty(), "a request after the bad frame was delivered");
    }

    @Test
    void responseWithAnUnknownCorrelationIdIsDroppedAndTheConnectionStaysUsable() throws DecodeException {
        open();
        channel.writeInbound(frameBuf(Frame.response(12345, PingResponse.error(ErrorCode.UNKNOWN))));
        channel.writeInbound(frameBuf(Frame.response(12346, StartResponse.ok())));
        assertTrue(channel.isOpen());
        assertTrue(handler.closed.isEmpty());

        CompletableFuture<Response> ping = connection.request(new PingRequest(1, 2, (short) 0));
        Frame sent = readOutboundFrame();
        channel.writeInbound(frameBuf(Frame.response(sent.header().correlationId(),
                new PingResponse(ErrorCode.NONE, 2, null))));
        assertEquals(new PingResponse(ErrorCode.NONE, 2, null), Await.get(ping));
    }

    @Test
    void duplicateCorrelationIdOfAnUnansweredRequestClosesTheConnection() {
        open();
        channel.writeInbound(frameBuf(Frame.request(5, new ConsultRequest())));
        channel.writeInbound(frameBuf(Frame.request(5, new ConsultRequest())));
        assertEquals(5, Await.take(handler.requests).correlationId());
        assertClosedForBadInput();
        assertTrue(handler.requests.isEmpty());
    }

    // ---- Requests we send ------------------------------------------------------------------------------------

    @Test
    void requestIsSentWithAFreshCorrelationIdAndCompletedByItsResponse() throws DecodeException {
        open();
        CompletableFuture<Response> first = connection.request(new StopRequest(1, 2));
        CompletableFuture<Response> second = connection.request(new StopRequest(1, 3));
        Frame sentFirst = readOutboundFrame();
        Frame sentSecond = readOutboundFrame();
        assertEquals(FrameKind.REQUEST, sentFirst.header().kind());
        assertEquals(new StopRequest(1, 2), sentFirst.message());
        assertFalse(sentFirst.header().correlationId() == sentSecond.header().correlationId());
        assertEquals(2, connection.pendingRequests());

        // Answered out of order.
        StopResponse toSecond = new StopResponse(ErrorCode.NONE, Samples.offsets(2));
        channel.writeInbound(frameBuf(Frame.response(sentSecond.header().correlationId(), toSecond)));
        assertEquals(toSecond, Await.get(second));
        assertFalse(first.isDone());
        channel.writeInbound(frameBuf(Frame.response(sentFirst.header().correlationId(),
                StopResponse.error(ErrorCode.ILLEGAL_GENERATION))));
        assertEquals(StopResponse.error(ErrorCode.ILLEGAL_GENERATION), Await.get(first));
        assertEquals(0, connection.pendingRequests());
    }

    @Test
    void requestWithoutAResponseTimesOutAndItsLateResponseIsDropped() throws DecodeException {
        open();
        CompletableFuture<Response> ping = connection.request(new PingRequest(1, 1, (short) 0), 200);
        Frame sent = readOutboundFrame();
        channel.advanceTimeBy(199, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertFalse(ping.isDone());
        channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        RequestTimeoutException timeout = Await.failure(ping, RequestTimeoutException.class);
        assertEquals(ApiKey.PING, timeout.apiKey());
        assertEquals(200, timeout.timeoutMs());
        assertEquals(0, connection.pendingRequests());

        channel.writeInbound(frameBuf(Frame.response(sent.header().correlationId(), PingResponse.error(
                ErrorCode.UNKNOWN))));
        assertTrue(channel.isOpen());
    }

    @Test
    void requestsBeyondPendingRequestsMaxAreRefusedWithoutBeingSent() throws DecodeException {
        open(CONFIG.withPendingRequestsMax(2), RecordingHandler.silent());
        connection.request(new ConsultRequest());
        connection.request(new ConsultRequest());
        Frame first = readOutboundFrame();
        readOutboundFrame();
        TooManyPendingRequestsException full =
                Await.failure(connection.request(new ConsultRequest()), TooManyPendingRequestsException.class);
        assertEquals(2, full.pendingRequestsMax());
        assertNull(readOutboundFrameOrNull(), "a refused request went out");

        channel.writeInbound(frameBuf(Frame.response(first.header().correlationId(),
                Samples.responseTo(new ConsultRequest()))));
        assertFalse(connection.request(new ConsultRequest()).isDone());
        assertEquals(2, connection.pendingRequests());
    }

    @Test
    void requestTooLargeForTheFrameLimitFailsWithTheProtocolsException() {
        open();
        CompletableFuture<Response> start = connection.request(Samples.startRequest(1, 1, 100));
        Await.failure(start, FrameTooLargeException.class);
        assertEquals(0, connection.pendingRequests());
        assertNull(readOutboundFrameOrNull());
    }

    @Test
    void responseOfAnotherApiFailsTheRequest() throws DecodeException {
        open();
        CompletableFuture<Response> stop = connection.request(new StopRequest(1, 1));
        Frame sent = readOutboundFrame();
        channel.writeInbound(frameBuf(Frame.response(sent.header().correlationId(), StartResponse.ok())));
        Await.failure(stop, UnexpectedResponseException.class);
        assertTrue(channel.isOpen());
    }

    @Test
    void closeFailsPendingRequestsAndRunsOnCloseOnce() {
        open();
        CompletableFuture<Response> ping = connection.request(new PingRequest(1, 1, (short) 0));
        CompletableFuture<Response> stop = connection.request(new StopRequest(1, 1));
        Await.get(connection.close());
        Await.failure(ping, ConnectionClosedException.class);
        Await.failure(stop, ConnectionClosedException.class);
        Closed closed = Await.take(handler.closed);
        assertEquals(connection, closed.connection());
        assertTrue(closed.cause().isEmpty());
        assertTrue(handler.closed.isEmpty());
        assertFalse(connection.isOpen());
        Await.failure(connection.request(new ConsultRequest()), ConnectionClosedException.class);
        Await.get(connection.close()); // idempotent
        assertTrue(handler.closed.isEmpty());
    }

    // ---- Requests we answer ----------------------------------------------------------------------------------

    @Test
    void respondRepeatsTheRequestsHeader() throws DecodeException {
        open();
        channel.writeInbound(frameBuf(Frame.request(-7, new PingRequest(3, 4, (short) 1))));
        Received received = Await.take(handler.requests);
        received.respond(new PingResponse(ErrorCode.NONE, 4, null));
        Frame reply = readOutboundFrame();
        assertEquals(FrameKind.RESPONSE, reply.header().kind());
        assertEquals(ApiKey.PING, reply.header().apiKey());
        assertEquals(-7, reply.header().correlationId());
        assertEquals(new PingResponse(ErrorCode.NONE, 4, null), reply.message());
    }

    @Test
    void answeringTwiceOrWithAnotherApiIsAProgrammingError() throws DecodeException {
        open();
        channel.writeInbound(frameBuf(Frame.request(1, new StopRequest(3, 4))));
        Received received = Await.take(handler.requests);
        assertThrows(IllegalArgumentException.class, () -> received.respond(StartResponse.ok()));
        received.respond(new StopResponse(ErrorCode.NONE, null)); // still answerable after the mistake
        assertThrows(IllegalStateException.class, () -> received.respond(new StopResponse(ErrorCode.NONE, null)));
        assertThrows(IllegalStateException.class, () -> connection.respond(999, StartResponse.ok()));
        assertEquals(new StopResponse(ErrorCode.NONE, null), readOutboundFrame().message());
        assertNull(readOutboundFrameOrNull());
    }

    @Test
    void answeringAfterTheConnectionClosedIsQuietlyDropped() {
        open();
        channel.writeInbound(frameBuf(Frame.request(1, new StopRequest(3, 4))));
        Received received = Await.take(handler.requests);
        channel.close();
        received.respond(new StopResponse(ErrorCode.NONE, null));
    }

    @Test
    void handlerThatThrowsIsAnsweredUnknown() throws DecodeException {
        open(CONFIG, RecordingHandler.answering(request -> {
            throw new IllegalStateException("bug in the handler");
        }));
        channel.writeInbound(frameBuf(Frame.request(31, new StopRequest(1, 1))));
        Frame reply = readOutboundFrame();
        assertEquals(31, reply.header().correlationId());
        assertEquals(StopResponse.error(ErrorCode.UNKNOWN), reply.message());
        assertTrue(channel.isOpen());
    }

    @Test
    void responseTooLargeToSendIsReplacedByUnknown() throws DecodeException {
        open(CONFIG, RecordingHandler.answering(request ->
                new StopResponse(ErrorCode.NONE, Samples.offsets(200))));
        channel.writeInbound(frameBuf(Frame.request(4, new StopRequest(1, 1))));
        Frame reply = readOutboundFrame();
        assertEquals(4, reply.header().correlationId());
        assertEquals(StopResponse.error(ErrorCode.UNKNOWN), reply.message());
    }

    // ---- Back-pressure ---------------------------------------------------------------------------------------

    @Test
    void stopsReadingWhilePendingRequestsMaxOfThePeersRequestsAwaitAnAnswer() {
        open(CONFIG.withPendingRequestsMax(2), RecordingHandler.silent());
        channel.writeInbound(frameBuf(Frame.request(1, new ConsultRequest())));
        assertTrue(channel.config().isAutoRead());
        // Two more in one read: the second must stay buffered, not be delivered past the limit.
        ByteBuf two = Unpooled.buffer();
        two.writeBytes(encode(Frame.request(2, new ConsultRequest())));
        two.writeBytes(encode(Frame.request(3, new PingRequest(1, 1, (short) 0))));
        channel.writeInbound(two);
        assertFalse(channel.config().isAutoRead(), "still reading with 2 requests unanswered");
        assertEquals(2, connection.awaitingResponses());
        assertEquals(2, handler.requests.size(), "delivered a request past pendingRequestsMax");

        // An answer resumes reading, which first decodes the request left in the buffer, which pauses again.
        Await.take(handler.requests).respond(Samples.responseTo(new ConsultRequest()));
        channel.runPendingTasks();
        assertEquals(2, handler.requests.size(), "the buffered request was not delivered on resuming");
        Received third = new ArrayList<>(handler.requests).get(1);
        assertEquals(3, third.correlationId());
        assertEquals(new PingRequest(1, 1, (short) 0), third.request());
        assertFalse(channel.config().isAutoRead());

        Await.take(handler.requests).respond(Samples.responseTo(new ConsultRequest()));
        assertTrue(channel.config().isAutoRead(), "not reading again after an answer");
    }

    @Test
    void unwritableConnectionRefusesRequestsAndStopsReadingUntilWritableAgain() {
        open();
        channel.unsafe().outboundBuffer().setUserDefinedWritability(1, false);
        channel.runPendingTasks(); // Netty fires the writability change as a task
        assertFalse(connection.isWritable());
        assertFalse(channel.config().isAutoRead());
        WriteBufferFullException full =
                Await.failure(connection.request(new ConsultRequest()), WriteBufferFullException.class);
        assertTrue(full.unsentBytes() >= 0);
        assertEquals(0, connection.pendingRequests());
        assertNull(readOutboundFrameOrNull());

        channel.unsafe().outboundBuffer().setUserDefinedWritability(1, true);
        channel.runPendingTasks();
        assertTrue(channel.config().isAutoRead());
        assertFalse(connection.request(new ConsultRequest()).isDone());
    }

    // ---- Helpers ---------------------------------------------------------------------------------------------

    private Closed assertClosedForBadInput() {
        assertFalse(channel.isOpen(), "connection still open after bad input");
        Closed closed = Await.take(handler.closed);
        assertInstanceOf(InvalidFrameException.class, closed.cause().orElseThrow());
        return closed;
    }

    private static byte[] encode(Frame frame) {
        ByteBuffer buffer = CODEC.encode(frame);
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    private static ByteBuf frameBuf(Frame frame) {
        return Unpooled.wrappedBuffer(encode(frame));
    }

    private Frame readOutboundFrame() throws DecodeException {
        Frame frame = readOutboundFrameOrNull();
        if (frame == null) {
            throw new AssertionError("nothing was written");
        }
        return frame;
    }

    /** The next frame written, skipping the empty buffer a graceful close flushes; null if none. */
    private Frame readOutboundFrameOrNull() {
        while (true) {
            ByteBuf written = channel.readOutbound();
            if (written == null) {
                return null;
            }
            try {
                if (!written.isReadable()) {
                    continue;
                }
                return CODEC.decodeSized(written.nioBuffer());
            } catch (DecodeException e) {
                throw new AssertionError("wrote an undecodable frame: " + e.getMessage(), e);
            } finally {
                written.release();
            }
        }
    }

    private static StartRequest largestStartRequestWithin(int frameBytesMax) {
        StartRequest request = new StartRequest(1, 1, List.of());
        for (int n = 1; ; n++) {
            StartRequest bigger = Samples.startRequest(1, 1, n);
            if (CODEC.encodedSize(Frame.request(1, bigger)) > frameBytesMax) {
                break;
            }
            request = bigger;
        }
        // Pad to the exact limit through the last partition's id.
        int missing = frameBytesMax - CODEC.encodedSize(Frame.request(1, request));
        List<PartitionAssignment> assigned = new ArrayList<>(request.assigned());
        PartitionAssignment last = assigned.remove(assigned.size() - 1);
        assigned.add(new PartitionAssignment(last.topic(), last.partition() + "x".repeat(missing),
                last.offset(), last.stream()));
        return new StartRequest(request.coordinatorEpoch(), request.generation(), assigned);
    }
}
