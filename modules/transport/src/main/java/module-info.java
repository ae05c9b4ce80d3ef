/**
 * Shepherd's transport: framed TCP connections between consumers and brokers, on Netty (DESIGN §2–§3,
 * docs/transport.md).
 *
 * <p>A {@link shepherd.transport.TransportServer} accepts connections, a {@link shepherd.transport.TransportClient}
 * opens them; either way the result is a symmetric {@link shepherd.transport.Connection} on which both ends send
 * requests (the coordinator pings the consumer on the consumer's own connection), match responses by correlation
 * id, and answer what they receive through a {@link shepherd.transport.ConnectionHandler}. Every limit (frame size,
 * timeouts, pending requests, write-buffer water marks, threads) is a {@link shepherd.transport.TransportConfig}
 * field, and going past one is a typed {@link shepherd.transport.TransportException}.
 *
 * <p>Netty is an implementation detail: no Netty type appears in the exported package, and the pipeline, the
 * connection state and the event-loop groups live in {@code shepherd.transport.internal}, which is not exported.
 * Frames are encoded and decoded only by the protocol module's {@code FrameCodec}.
 */
module shepherd.transport {
    requires transitive shepherd.protocol;
    requires io.netty.common;
    requires io.netty.buffer;
    requires io.netty.transport;
    requires io.netty.codec;
    requires org.slf4j;

    exports shepherd.transport;
}
