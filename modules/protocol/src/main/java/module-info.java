/**
 * Shepherd's wire protocol: the messages consumers and brokers exchange, and the one codec that turns them into
 * bytes and back (DESIGN §3, docs/protocol.md).
 *
 * <p>This module is the bottom of the module graph and is deliberately sans-I/O: it sees no sockets, threads,
 * clocks or logging, so the coordination core, the transport and the tests all share exactly the same codec.
 * It exports only {@code shepherd.protocol}: the message records, {@link shepherd.protocol.ApiKey},
 * {@link shepherd.protocol.ErrorCode} and {@link shepherd.protocol.FrameCodec}. The byte-level reader and writer
 * live in {@code shepherd.protocol.internal}, which is not exported, so nobody can encode a message any other way.
 */
module shepherd.protocol {
    exports shepherd.protocol;
}
