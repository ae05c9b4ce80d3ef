package shepherd.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import shepherd.protocol.ApiKey;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.RegisterResponse;
import shepherd.protocol.WildcardKind;
import shepherd.protocol.WildcardSubscription;
import shepherd.transport.Connection;

/** Garbage on the wire and invalid registrations are answered, and disturb nobody else. */
class BadInputIT extends ClusterTestSupport {
    private static final String TOPIC = "logs";
    private static final List<String> PARTITIONS = List.of("1-0", "1-1", "1-2");
    private Broker coordinator;
    private List<TestConsumer> members;

    @BeforeEach
    void twoBrokersAndAStableGroup() throws Exception {
        cluster.setPartitions(TOPIC, 1, 3);
        cluster.startBroker(1);
        cluster.startBroker(2);
        coordinator = cluster.awaitSingleCoordinator(10_000);
        members = List.of(cluster.consumer("g", "c1", TOPIC), cluster.consumer("g", "c2", TOPIC));
        cluster.awaitRangeAssignment(TOPIC, PARTITIONS, members, 10_000);
    }

    @Test
    void aMalformedFrameIsAnsweredInvalidRequestAndClosedWhileOthersKeepWorking() throws Exception {
        int generation = members.get(0).generation();
        try (Socket socket = new Socket("127.0.0.1", coordinator.port())) {
            socket.setSoTimeout(5_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            byte[] garbage = {0x7f, 0x01, 0x02};
            out.writeInt(1 + 2 + 2 + 4 + garbage.length); // size: header + a body too short for a Register
            out.writeByte(0); // kind: request
            out.writeShort(ApiKey.REGISTER.id());
            out.writeShort(0); // version
            out.writeInt(4242); // correlation id
            out.write(garbage);
            out.flush();

            DataInputStream in = new DataInputStream(socket.getInputStream());
            int size = in.readInt();
            byte kind = in.readByte();
            short apiKey = in.readShort();
            in.readShort(); // version
            int correlationId = in.readInt();
            short errorCode = in.readShort();
            assertEquals(1, kind, "a response");
            assertEquals(ApiKey.REGISTER.id(), apiKey);
            assertEquals(4242, correlationId);
            assertEquals(ErrorCode.INVALID_REQUEST.code(), errorCode);
            in.skipBytes(size - 11);
            try {
                int next = in.read();
                assertEquals(-1, next, "the connection is closed after the answer");
            } catch (java.net.SocketException | EOFException e) {
                // reset: closed as well
            }
        }
        // Nothing else was disturbed: same generation, same assignment, and a newcomer still joins.
        cluster.awaitRangeAssignment(TOPIC, PARTITIONS, members, 5_000);
        assertEquals(generation, members.get(0).generation());
        TestConsumer c3 = cluster.consumer("g", "c3", TOPIC);
        cluster.awaitRangeAssignment(TOPIC, PARTITIONS, List.of(members.get(0), members.get(1), c3), 10_000);
    }

    @Test
    void aRegisterWithAnInvalidRegexGetsInvalidRegistration() throws Exception {
        int generation = members.get(0).generation();
        Connection c = cluster.client.connect("127.0.0.1", coordinator.port(), (conn, id, req) -> { })
                .get(5, TimeUnit.SECONDS);
        try {
            RegisterResponse r = (RegisterResponse) c.request(new RegisterRequest("g", "bad",
                    new WildcardSubscription(WildcardKind.WHITELIST, "logs([", 1), false, OffsetReset.SMALLEST,
                    Cluster.PING_INTERVAL_MS, (short) Cluster.PING_RETRIES, -1)).get(5, TimeUnit.SECONDS);
            assertEquals(ErrorCode.INVALID_REGISTRATION, r.errorCode());
        } finally {
            c.close();
        }
        cluster.awaitRangeAssignment(TOPIC, PARTITIONS, members, 5_000);
        assertEquals(generation, members.get(0).generation(), "the group was not rebalanced");
        assertEquals(false, coordinator.status().groups().get("g").members().contains("bad"));
    }
}
